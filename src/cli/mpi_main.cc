#include "cli/mpi_main.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/command_line.h"
#include "cli/file_limit.h"
#include "cli/generator.h"
#include "cli/merge.h"
#include "cli/signal_watcher.h"
#include "core/error_line.h"
#include "loadgen/hooks.h"
#include "loadgen/merge.h"
#include "loadgen/report/json.h"
#include "loadgen/result_file.h"
#include "loadgen/runner.h"
#include "mpi/clock_sync.h"
#include "mpi/world.h"

namespace stampede::loadgen {
namespace {

// Time for every rank to build its workers between the start being chosen and reached.
constexpr std::int64_t kStartLeadNs = 250'000'000;

// The command line, with the shard this rank runs; an error is the line to print.
Expected<CliRequest> parse_for_rank(int argc, char** argv, const mpi::World& world) {
  std::error_code ec;
  const std::filesystem::path cwd = std::filesystem::current_path(ec);
  auto request = parse_command_line(argc, argv, ec ? std::filesystem::path(".") : cwd);
  if (!request || request->action != CliRequest::Action::Run) return request;
  Config& config = request->plan.config;
  if (!config.shard.whole()) {
    return make_error(
        "--shard: under mpirun each rank is a shard already (rank K-1 of N runs "
        "K/N); leave it out");
  }
  if (!request->settings.save.empty()) {
    return make_error(
        "--save: under mpirun rank 0 merges the shards' results itself; use "
        "--shard K/N --save without mpirun to keep them");
  }
  if (request->settings.repeat > 1) {
    return make_error("--repeat: not under mpirun (run mpirun N times, or --repeat without it)");
  }
  config.shard =
      Shard{static_cast<std::uint32_t>(world.rank() + 1), static_cast<std::uint32_t>(world.size())};
  if (auto r = check_shard(config.shard, config.concurrency, config.max_requests); !r) {
    return make_error(fmt::format("{} (mpirun -np {})", r.error().message, world.size()));
  }
  // Each rank opens its own part of -c, within its own limit (hosts may differ).
  if (auto fits = fit_file_limit(config); !fits) {
    return make_error(fmt::format("{} (mpirun -np {})", fits.error().message, world.size()));
  }
  return request;
}

// Same verdict everywhere: false on every rank when any rank refused its command line. Rank 0's
// line when it refused (then every rank did, most likely, for the same reason), else the line of
// each rank that did, naming it.
bool every_rank_accepts(const mpi::World& world, const Expected<CliRequest>& request) {
  const std::vector<std::int64_t> refused = world.all_gather(request ? 0 : 1);
  bool any = false;
  for (std::int64_t r : refused)
    any = any || r != 0;
  if (!any) return true;
  if (!request) {
    if (world.rank() == 0) {
      print_error_line(request.error().message);
    } else if (refused[0] == 0) {
      print_error_line(
          fmt::format("rank {} on {}: {}", world.rank(), world.host(), request.error().message));
    }
  }
  return false;
}

// The clock figures the report shows: the largest offset from rank 0 and round trip.
std::vector<std::string> clock_notes(const std::vector<std::int64_t>& offsets,
                                     const std::vector<std::int64_t>& rtts,
                                     std::int64_t& max_offset, std::int64_t& max_rtt) {
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    max_offset = std::max(max_offset, offsets[i] < 0 ? -offsets[i] : offsets[i]);
    max_rtt = std::max(max_rtt, rtts[i]);
  }
  return {
      fmt::format("MPI: {} ranks started at one instant of rank 0's clock; clock offsets from "
                  "rank 0 by the fastest of {} MPI round trips each: largest {:.3f} ms, "
                  "round trip up to {:.3f} ms (the offsets' error is at most half of it)",
                  offsets.size(), mpi::kClockRounds, static_cast<double>(max_offset) / 1e6,
                  static_cast<double>(max_rtt) / 1e6)};
}

// Rank 0: the ranks' result lines merged and reported; the job's exit status.
// A request script's done() runs here once, with the merged result, as after a single run.
int report_on_rank0(const std::vector<std::string>& lines, const CliSettings& settings,
                    const HookSet* hooks, const std::vector<std::int64_t>& offsets,
                    const std::vector<std::int64_t>& rtts) {
  ResultMerger merger(/*force=*/false);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string origin = fmt::format("rank {}", i);
    auto saved = parse_result_line(lines[i]);
    if (!saved) {
      print_error_line(origin + ": " + saved.error().message);
      return 1;
    }
    if (auto added = merger.add(std::move(saved).value(), origin); !added) {
      print_error_line(added.error().message);
      return 1;
    }
  }
  auto merged = merger.finish();
  if (!merged) {
    print_error_line(merged.error().message);
    return 1;
  }
  if (hooks && hooks->on_done) hooks->on_done(to_json(merged->result).dump());
  MergedReportSettings out;
  out.json = settings.json;
  out.html = settings.html;
  out.thresholds = settings.thresholds;
  std::int64_t max_offset = 0, max_rtt = 0;
  out.notes = clock_notes(offsets, rtts, max_offset, max_rtt);
  out.extra_json["mpi"] = {{"ranks", offsets.size()},
                           {"clockRounds", mpi::kClockRounds},
                           {"maxClockOffsetMs", static_cast<double>(max_offset) / 1e6},
                           {"maxRoundTripMs", static_cast<double>(max_rtt) / 1e6}};
  return print_merged_report(out, *merged);
}

// This rank's part: the common start, the run, the reduction. A failed run aborts the job.
int run_rank(const mpi::World& world, CliRequest& request, StopSignal& stop) {
  Plan& plan = request.plan;
  plan.config.io = settle_io_backend(plan.config.io);
  world.barrier();
  const mpi::ClockOffset offset = mpi::measure_offset(world);
  const mpi::StartInstant start =
      mpi::agree_on_start(world, offset, plan.config.start_at_unix_ns, kStartLeadNs);
  plan.config.start_at_unix_ns = start.local_unix_ns;
  RunHooks hooks;
  // Rank 0's progress lines (its shard's); the other ranks print nothing.
  hooks.progress = world.rank() == 0 && !request.settings.quiet ? &std::cerr : nullptr;
  // Ctrl-C on mpirun reaches every rank (mpirun passes it on as SIGTERM): each stops its run
  // and the reduction below goes on, so rank 0 reports what ran, as a single run does.
  hooks.stop = &stop;
  auto result = run(plan, hooks);
  if (!result) {
    print_error_line(
        fmt::format("rank {} on {}: {}", world.rank(), world.host(), result.error().message));
    world.abort(1);
  }
  // On rank 0's clock, so that the shards line up in the merge; the identity carries rank 0's
  // start, the same on every rank.
  result->start_unix_ns += offset.offset_ns;
  Config identity = plan.config;
  identity.start_at_unix_ns = start.rank0_unix_ns;
  const std::string line =
      to_result_line(*result, identity, host_name(), process_cpu_seconds(),
                     {request.settings.request_script, request.settings.body_script});
  const std::vector<std::string> lines = world.gather_text(line);
  const std::vector<std::int64_t> offsets = world.all_gather(offset.offset_ns);
  const std::vector<std::int64_t> rtts = world.all_gather(offset.rtt_ns);
  if (world.rank() != 0) return 0;
  return report_on_rank0(lines, request.settings, plan.config.hooks.get(), offsets, rtts);
}

}  // namespace

int mpi_main(int argc, char** argv) {
  // Before MPI_Init, so that MPI's own threads inherit the blocked signals.
  StopSignal stop;
  SignalWatcher watcher(stop);
  mpi::World world(argc, argv);
  Expected<CliRequest> request = make_error("not parsed");
  try {
    request = parse_for_rank(argc, argv, world);
  } catch (const std::exception& e) {
    request = make_error(e.what());
  }
  if (!every_rank_accepts(world, request)) return 2;
  switch (request->action) {
    case CliRequest::Action::Help:
      if (world.rank() == 0) std::fputs(request->text.c_str(), stdout);
      return 0;
    case CliRequest::Action::Version:
      if (world.rank() == 0) std::printf("stampede %s (MPI)\n", version().c_str());
      return 0;
    case CliRequest::Action::Run:
      break;
  }
  // An exception out of a rank's run is a failed run: named, and the job ends (the other ranks
  // may be waiting for this one in a collective).
  std::string failure;
  try {
    return run_rank(world, *request, stop);
  } catch (const std::exception& e) {
    failure = e.what();
  } catch (...) {
    failure = "unexpected error";
  }
  print_error_line(fmt::format("rank {} on {}: {}", world.rank(), world.host(), failure));
  world.abort(1);
}

}  // namespace stampede::loadgen
