// The input of the HTML report: plain values, independent of the generator's and the lab's
// internals. The caller converts its summaries into these; the report only formats them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "report/svg_chart.h"

namespace stampede::report {

// One row of a key/value table. Both strings are shown as text (HTML-escaped).
struct KeyValue {
  std::string key;
  std::string value;
};

// A latency percentile distribution, e.g. "corrected" or "uncorrected".
// points: (percentile in 0..100, latency in ms), in increasing percentile order (as
// stats::Histogram::percentile_distribution() gives them). Points with a percentile outside
// 0..100 or a non-finite value are skipped; a point at 100 is drawn at the axis' right end.
struct PercentileSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;
};

// One time step of a run (a stats::TimelineRow converted to rates). t_s is the step's start in
// seconds since the run started; the *_rps and errors_* fields are per second (count / the time
// the step covers, so that a run's partial last step is not drawn as a drop). p50_ms and p99_ms
// are over every request that ended in the step, failures included, the summary's population.
// A non-finite value (e.g. NaN for p50_ms in a step where nothing ended) is a gap in its line.
struct TimePoint {
  double t_s = 0;
  double sent_rps = 0;
  double completed_rps = 0;
  double errors_4xx = 0;
  double errors_5xx = 0;
  double errors_transport = 0;
  double p50_ms = 0;
  double p99_ms = 0;
};

// A generic table (the lab adds per-scenario tables). An empty header gives a table without a
// header row (use two columns for a key/value table). A column whose non-empty cells all start
// with a number is right-aligned.
struct Table {
  std::string title;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

// A chart of the caller's own (e.g. throughput against connections), with its caption and a
// note under it.
struct Figure {
  std::string caption;
  std::string note;
  ChartSpec chart;
};

// Everything one report shows; every part may be empty. Sections appear in this order: title and
// subtitle, findings, summary, latency distribution, charts over time, the caller's figures,
// tables.
struct ReportData {
  std::string title;     // e.g. "stampede load test"
  std::string subtitle;  // e.g. "GET http://host/path · 8 connections · 30 s"
  std::vector<KeyValue> summary;
  std::vector<PercentileSeries> latency;
  std::vector<TimePoint> timeline;  // in increasing t_s order
  std::vector<Figure> figures;      // in one section, "Charts"
  std::vector<Table> tables;
  std::vector<std::string> findings;  // lines of plain text, e.g. lab findings, threshold failures
};

}  // namespace stampede::report
