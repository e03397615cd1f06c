#include "report/html_report.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "report/svg_chart.h"

namespace stampede::report {
namespace {

// System fonts only: the page must render identically offline.
constexpr const char* kStyle = R"css(
:root{--fg:#1f2328;--muted:#59636e;--border:#d1d9e0;--subtle:#f6f8fa}
*{box-sizing:border-box}
body{margin:0;background:#fff;color:var(--fg);font:14px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI","Noto Sans",Helvetica,Arial,sans-serif}
main{max-width:1040px;margin:0 auto;padding:32px 24px 48px}
h1{font-size:24px;font-weight:600;margin:0 0 4px}
h2{font-size:16px;font-weight:600;margin:32px 0 12px;padding-bottom:6px;border-bottom:1px solid var(--border)}
.subtitle{margin:0;color:var(--muted);font:13px/1.5 ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,"Liberation Mono",monospace;overflow-wrap:anywhere}
.empty{margin:24px 0;padding:16px;border:1px dashed var(--border);border-radius:6px;color:var(--muted);text-align:center}
table{border-collapse:collapse;font-variant-numeric:tabular-nums;margin:0 0 8px}
th,td{padding:5px 12px;border:1px solid var(--border);text-align:left;vertical-align:top;overflow-wrap:anywhere}
thead th{background:var(--subtle);font-weight:600}
td.num,th.num{text-align:right;white-space:nowrap}
table.summary th{background:var(--subtle);font-weight:500;color:var(--muted)}
table.summary td{font-weight:600;min-width:110px}
.findings ul{margin:0;padding:10px 16px 10px 34px;background:#fff8c5;border-left:4px solid #bf8700;border-radius:0 6px 6px 0}
.findings li{margin:2px 0;white-space:pre-wrap}
figure{margin:0 0 20px;padding:12px 12px 4px;border:1px solid var(--border);border-radius:6px}
figcaption{font-weight:600}
figcaption span{display:block;font-weight:400;font-size:12px;color:var(--muted)}
svg.chart{display:block;width:100%;height:auto;font-size:12px;font-family:inherit}
svg .grid line{stroke:#eaeef2}
svg .axis line{stroke:#8c959f}
svg .axis text{fill:var(--muted);font-variant-numeric:tabular-nums}
svg .axis-title,svg .legend text{fill:var(--fg)}
svg .line{fill:none;stroke-width:2;stroke-linejoin:round;stroke-linecap:round}
svg .line.thin{stroke-width:1.25}
svg .line.dashed{stroke-width:1.5;stroke-dasharray:5 4}
svg .legend .line{stroke-width:3}
svg .legend .line.dashed{stroke-width:2;stroke-dasharray:4 2}
svg .area{fill-opacity:.45;stroke:none}
svg .cursor{stroke:#8c959f;stroke-dasharray:3 3}
svg .dot{stroke:#fff;stroke-width:1.5}
svg .nodata{fill:var(--muted);font-size:15px}
footer{margin-top:40px;color:var(--muted);font-size:12px}
#tip{position:absolute;display:none;pointer-events:none;padding:6px 8px;border-radius:4px;background:rgba(31,35,40,.92);color:#fff;font-size:12px;white-space:pre;font-variant-numeric:tabular-nums}
)css";

// Tooltips: reads each chart's data-hover (see svg_chart.cc) and moves the cursor and dots to the
// nearest position. Text goes through textContent, never innerHTML.
constexpr const char* kScript = R"js(
(function(){
var tip=document.getElementById('tip');
document.querySelectorAll('svg[data-hover]').forEach(function(svg){
  var h=JSON.parse(svg.getAttribute('data-hover')),g=svg.querySelector('.hover');
  var cur=g.querySelector('.cursor'),dots=g.querySelectorAll('.dot');
  svg.addEventListener('mousemove',function(e){
    var m=svg.getScreenCTM();if(!m||!h.x.length)return;
    var x=(e.clientX-m.e)/m.a,lo=0,hi=h.x.length-1;
    while(lo<hi){var mid=(lo+hi)>>1;if(h.x[mid]<x)lo=mid+1;else hi=mid;}
    if(lo>0&&x-h.x[lo-1]<h.x[lo]-x)lo--;
    cur.setAttribute('x1',h.x[lo]);cur.setAttribute('x2',h.x[lo]);
    dots.forEach(function(d,i){var y=h.y[lo][i];
      d.setAttribute('visibility',y===null?'hidden':'inherit');
      if(y!==null){d.setAttribute('cx',h.x[lo]);d.setAttribute('cy',y);}});
    g.setAttribute('visibility','visible');
    tip.textContent=h.t[lo];tip.style.display='block';
    var left=e.pageX+14;if(e.clientX+tip.offsetWidth+24>window.innerWidth)left=e.pageX-tip.offsetWidth-14;
    tip.style.left=left+'px';tip.style.top=(e.pageY+14)+'px';
  });
  svg.addEventListener('mouseleave',function(){g.setAttribute('visibility','hidden');tip.style.display='none';});
});
})();
)js";

constexpr const char* kPalette[] = {"#2563eb", "#ea580c", "#16a34a",
                                    "#9333ea", "#0891b2", "#be123c"};

// Whether a cell starts with a number (after an optional sign).
bool looks_numeric(const std::string& s) {
  std::size_t i = s.find_first_not_of(' ');
  if (i == std::string::npos) return false;
  if ((s[i] == '-' || s[i] == '+') && i + 1 < s.size()) ++i;
  return s[i] >= '0' && s[i] <= '9';
}

bool is_empty(const ReportData& d) {
  return d.summary.empty() && d.latency.empty() && d.timeline.empty() && d.figures.empty() &&
         d.tables.empty() && d.findings.empty();
}

void write_head(const ReportData& d, std::ostream& out) {
  const std::string title = d.title.empty() ? "stampede report" : d.title;
  out << "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>" << escape_html(title) << "</title>\n<style>" << kStyle << "</style>\n"
      << "</head>\n<body>\n<main>\n<header>\n<h1>" << escape_html(title) << "</h1>\n";
  if (!d.subtitle.empty()) out << "<p class=\"subtitle\">" << escape_html(d.subtitle) << "</p>\n";
  out << "</header>\n";
}

void write_findings(const std::vector<std::string>& findings, std::ostream& out) {
  if (findings.empty()) return;
  out << "<section class=\"findings\">\n<h2>Findings</h2>\n<ul>\n";
  for (const std::string& f : findings)
    out << "<li>" << escape_html(f) << "</li>\n";
  out << "</ul>\n</section>\n";
}

// Key/value pairs; more than six are laid out in two column pairs to keep the table short.
void write_summary(const std::vector<KeyValue>& rows, std::ostream& out) {
  if (rows.empty()) return;
  out << "<section>\n<h2>Summary</h2>\n<table class=\"summary\">\n<tbody>\n";
  const bool two_pairs = rows.size() > 6;
  const std::size_t half = two_pairs ? (rows.size() + 1) / 2 : rows.size();
  auto cell_pair = [&out](const KeyValue& kv) {
    out << "<th scope=\"row\">" << escape_html(kv.key) << "</th><td>" << escape_html(kv.value)
        << "</td>";
  };
  for (std::size_t i = 0; i < half; ++i) {
    out << "<tr>";
    cell_pair(rows[i]);
    if (two_pairs) cell_pair(i + half < rows.size() ? rows[i + half] : KeyValue{});
    out << "</tr>\n";
  }
  out << "</tbody>\n</table>\n</section>\n";
}

// A column is numeric (right-aligned, header included) when every non-empty cell of it starts
// with a number, e.g. "1,234", "12.5 ms", "-3", "98.8%".
std::vector<bool> numeric_columns(const Table& t) {
  std::size_t columns = t.header.size();
  for (const auto& row : t.rows)
    columns = std::max(columns, row.size());
  std::vector<bool> numeric(columns, false);
  for (std::size_t c = 0; c < columns; ++c) {
    bool any = false;
    bool all = true;
    for (const auto& row : t.rows) {
      if (c >= row.size() || row[c].empty()) continue;
      any = true;
      all = all && looks_numeric(row[c]);
    }
    numeric[c] = any && all;
  }
  return numeric;
}

void write_table(const Table& t, std::ostream& out) {
  const std::vector<bool> numeric = numeric_columns(t);
  out << "<section>\n<h2>" << escape_html(t.title.empty() ? "Table" : t.title)
      << "</h2>\n<table>\n";
  if (!t.header.empty()) {
    out << "<thead><tr>";
    for (std::size_t c = 0; c < t.header.size(); ++c) {
      out << (numeric[c] ? "<th class=\"num\">" : "<th>") << escape_html(t.header[c]) << "</th>";
    }
    out << "</tr></thead>\n";
  }
  out << "<tbody>\n";
  for (const auto& row : t.rows) {
    out << "<tr>";
    for (std::size_t c = 0; c < row.size(); ++c) {
      out << (numeric[c] ? "<td class=\"num\">" : "<td>") << escape_html(row[c]) << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</tbody>\n</table>\n</section>\n";
}

void write_figure(const std::string& caption, const std::string& note, const ChartSpec& spec,
                  std::ostream& out) {
  out << "<figure>\n<figcaption>" << escape_html(caption);
  if (!note.empty()) out << "<span>" << escape_html(note) << "</span>";
  out << "</figcaption>\n";
  write_svg_chart(spec, out);
  out << "\n</figure>\n";
}

void write_latency(const std::vector<PercentileSeries>& latency, std::ostream& out) {
  if (latency.empty()) return;
  ChartSpec spec;
  spec.label = "Latency by percentile";
  spec.x_label = "percentile";
  spec.y_label = "latency (ms)";
  spec.y_unit = "ms";
  spec.x_scale = XScale::PercentileNines;
  for (std::size_t i = 0; i < latency.size(); ++i) {
    spec.series.push_back({latency[i].name, kPalette[i % std::size(kPalette)], latency[i].points});
  }
  out << "<section>\n<h2>Latency distribution</h2>\n";
  write_figure("Latency by percentile",
               "Log scale in the distance to 100%: each step right adds a nine.", spec, out);
  out << "</section>\n";
}

// One series of the timeline: field of every point against its time.
ChartSeries time_series(const std::vector<TimePoint>& timeline, std::string name, std::string color,
                        double TimePoint::*field) {
  ChartSeries s{std::move(name), std::move(color), {}};
  s.points.reserve(timeline.size());
  for (const TimePoint& p : timeline)
    s.points.emplace_back(p.t_s, p.*field);
  return s;
}

ChartSpec time_chart(std::string label, std::string y_label, std::string y_unit) {
  return line_chart(std::move(label), {"time since start (s)", "s"},
                    {std::move(y_label), std::move(y_unit)});
}

void write_timeline(const std::vector<TimePoint>& t, std::ostream& out) {
  if (t.empty()) return;
  out << "<section>\n<h2>Over time</h2>\n";
  ChartSpec rate = time_chart("Throughput over time", "requests per second", "req/s");
  // Sent is dashed and drawn last: in a steady run it lies exactly on completed.
  rate.series = {time_series(t, "completed", "#2563eb", &TimePoint::completed_rps),
                 time_series(t, "sent", "#64748b", &TimePoint::sent_rps)};
  rate.series.back().dashed = true;
  write_figure("Throughput",
               "Responses completed and requests sent per second: each step's count over the time "
               "it covers (the last step ends with the run).",
               rate, out);

  ChartSpec latency = time_chart("Latency over time", "latency (ms)", "ms");
  latency.series = {time_series(t, "p50", "#2563eb", &TimePoint::p50_ms),
                    time_series(t, "p99", "#ea580c", &TimePoint::p99_ms)};
  write_figure("Latency",
               "Median and 99th percentile of the requests that ended in each step, failures "
               "included (timed to the failure), as in the summary's percentiles.",
               latency, out);

  ChartSpec errors = time_chart("Errors over time", "errors per second", "errors/s");
  errors.style = ChartStyle::StackedAreas;
  errors.series = {time_series(t, "HTTP 4xx", "#d97706", &TimePoint::errors_4xx),
                   time_series(t, "HTTP 5xx", "#dc2626", &TimePoint::errors_5xx),
                   time_series(t, "transport", "#7c3aed", &TimePoint::errors_transport)};
  write_figure("Errors", "Per second, stacked by class: HTTP 4xx, HTTP 5xx, transport failures.",
               errors, out);
  out << "</section>\n";
}

void write_figures(const std::vector<Figure>& figures, std::ostream& out) {
  if (figures.empty()) return;
  out << "<section>\n<h2>Charts</h2>\n";
  for (const Figure& f : figures)
    write_figure(f.caption, f.note, f.chart, out);
  out << "</section>\n";
}

}  // namespace

void write_html(const ReportData& data, std::ostream& out) {
  write_head(data, out);
  if (is_empty(data)) {
    out << "<p class=\"empty\">No data: nothing was recorded for this report.</p>\n";
  }
  write_findings(data.findings, out);
  write_summary(data.summary, out);
  write_latency(data.latency, out);
  write_timeline(data.timeline, out);
  write_figures(data.figures, out);
  for (const Table& t : data.tables)
    write_table(t, out);
  out << "<footer>Generated by stampede.</footer>\n</main>\n<div id=\"tip\"></div>\n<script>"
      << kScript << "</script>\n</body>\n</html>\n";
}

Expected<void> write_html_file(const ReportData& data, const std::string& path) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) return make_error("cannot write " + path + ": " + std::strerror(errno));
  write_html(data, file);
  file.flush();
  if (!file) return make_error("cannot write " + path + ": " + std::strerror(errno));
  return {};
}

}  // namespace stampede::report
