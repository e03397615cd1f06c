// The JSON report (report.h); the schema is documented in docs/lab.md.
#include <nlohmann/json.hpp>

#include "lab/report.h"
#include "lab/sources.h"
#include "loadgen/report/sweep.h"

namespace stampede::lab {
namespace {

using Json = nlohmann::ordered_json;

Json optional_number(const std::optional<double>& v) {
  return v ? Json(*v) : Json(nullptr);
}

Json instance_json(const RunRecord& run, std::size_t i) {
  const InstanceRow& row = run.instances[i];
  Json j;
  j["name"] = row.name;
  j["delay_ms"] = row.delay_ms;
  j["count"] = row.served ? Json(*row.served) : Json(nullptr);
  j["x_instance"] = row.by_instance;
  j["x_backend"] = run.backend_header ? Json(row.by_backend) : Json(nullptr);
  j["share"] = shares(run, share_source(run))[i];
  j["killed"] = row.killed;
  j["balancer_up"] = row.balancer_up ? Json(*row.balancer_up) : Json(nullptr);
  j["direct_p50_ms"] = optional_number(row.direct_p50_ms);
  j["direct_p99_ms"] = optional_number(row.direct_p99_ms);
  if (row.max_connections) j["max_connections"] = *row.max_connections;
  return j;
}

// The hang scenario's timing (record.h's HangTiming).
Json hang_json(const HangTiming& t) {
  const auto ms = [](const std::optional<std::int64_t>& v) { return v ? Json(*v) : Json(nullptr); };
  return {{"hung", t.hung},
          {"stop_at_s", t.stop_at_s},
          {"hang_s", t.hang_s},
          {"run_s", t.run_s},
          {"resolution_s", t.resolution_s},
          {"backend_timeout_ms", ms(t.backend_timeout_ms)},
          {"health_timeout_ms", ms(t.health_timeout_ms)},
          {"failed_in_hang", t.failed_in_hang},
          {"failed_after_resume", t.failed_after_resume},
          {"last_failure_in_hang_s", optional_number(t.last_failure_in_hang_s)},
          {"last_failure_after_resume_s", optional_number(t.last_failure_after_resume_s)},
          {"down_after_stop_s", optional_number(t.down_after_stop_s)},
          {"up_after_resume_s", optional_number(t.up_after_resume_s)}};
}

Json run_json(const RunRecord& run) {
  Json j;
  j["label"] = run.label();
  j["scenario"] = std::string(scenario_name(run.scenario));
  j["strategy"] = run.strategy.empty() ? Json(nullptr) : Json(run.strategy);
  j["health_ms"] = run.health_ms ? Json(*run.health_ms) : Json(nullptr);
  if (run.retries) j["retries"] = *run.retries;
  j["requests"] = run.requests;
  j["errors"] = run.errors;
  j["error_codes"] = run.error_codes;
  j["seconds"] = run.seconds;
  j["rps"] = run.rps;
  j["p50_ms"] = run.p50_ms;
  j["p99_ms"] = run.p99_ms;
  j["share_source"] = std::string(source_name(share_source(run)));
  j["backend_header"] = run.backend_header;
  j["instances"] = Json::array();
  for (std::size_t i = 0; i < run.instances.size(); ++i)
    j["instances"].push_back(instance_json(run, i));
  j["stray_x_instance"] = run.stray_instance_values;
  j["stray_x_backend"] = run.stray_backend_values;
  if (run.scenario == ScenarioKind::Sticky) {
    j["sessions"] = Json::array();
    for (const SessionRow& s : run.sessions) {
      j["sessions"].push_back({{"name", s.name},
                               {"requests", s.requests},
                               {"errors", s.errors},
                               {"x_instance", s.by_instance},
                               {"x_backend", s.by_backend}});
    }
  }
  if (run.outage) {
    const OutageTiming& t = *run.outage;
    j["outage"] = {{"killed", t.killed},
                   {"kill_at_s", t.kill_at_s},
                   {"last_failure_after_kill_s", optional_number(t.last_failure_after_kill_s)},
                   {"resolution_s", t.resolution_s},
                   {"run_s", t.run_s}};
  }
  if (run.hang) j["hang"] = hang_json(*run.hang);
  if (run.h2) j["h2"] = {{"connections", run.h2->connections}, {"streams", run.h2->streams}};
  return j;
}

Json sweep_steps_json(const std::vector<loadgen::SweepStep>& steps) {
  Json out = Json::array();
  for (const loadgen::SweepStep& step : steps)
    out.push_back(loadgen::sweep_step_json(step, loadgen::StepFields::Lab));
  return out;
}

Json sweep_knee_json(const std::vector<loadgen::SweepStep>& steps) {
  const auto knee = loadgen::find_knee(steps);
  return knee ? Json(steps[knee->index].connections) : Json(nullptr);
}

Json sweep_json(const SweepRecord& s) {
  Json j;
  j["strategy"] = s.strategy;
  j["instance"] = s.instance;
  j["pool"] = sweep_steps_json(s.pool);
  j["single"] = sweep_steps_json(s.single);
  j["pool_knee"] = sweep_knee_json(s.pool);
  j["single_knee"] = sweep_knee_json(s.single);
  return j;
}

}  // namespace

void write_json(const LabResult& result, std::ostream& out) {
  const LabConfig& c = result.config;
  Json doc;
  doc["ok"] = result.ok();
  doc["balancer"] = result.balancer;
  doc["instances"] = Json::array();
  for (std::size_t i = 0; i < c.instances.size(); ++i) {
    doc["instances"].push_back({{"name", c.instances[i].name},
                                {"address", i < result.addresses.size() ? result.addresses[i] : ""},
                                {"delay_ms", c.instances[i].delay.count()}});
  }
  doc["load"] = {{"connections", c.load.connections},
                 {"duration_s", std::chrono::duration<double>(c.load.duration).count()},
                 {"cores", c.load.cores},
                 {"keep_alive", true}};
  doc["runs"] = Json::array();
  for (const RunRecord& run : result.runs)
    doc["runs"].push_back(run_json(run));
  if (result.sweep) doc["sweep"] = sweep_json(*result.sweep);
  doc["findings"] = Json::array();
  for (const Finding& f : result.findings) {
    doc["findings"].push_back({{"kind", std::string(kind_name(f.kind))},
                               {"verdict", f.verdict == Verdict::Fail ? "fail" : "note"},
                               {"scope", f.scope},
                               {"text", f.text}});
  }
  doc["wall_seconds"] = result.wall_seconds;
  out << doc.dump(2) << '\n';
}

}  // namespace stampede::lab
