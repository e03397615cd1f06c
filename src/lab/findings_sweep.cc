// The sweep's finding (findings.h): the pool against the single instance.
#include <algorithm>

#include <fmt/format.h>

#include "lab/findings_detail.h"

namespace stampede::lab {
namespace {

// The step with the highest throughput.
const loadgen::SweepStep* best(const std::vector<loadgen::SweepStep>& steps) {
  if (steps.empty()) return nullptr;
  return &*std::max_element(steps.begin(), steps.end(),
                            [](const auto& a, const auto& b) { return a.rps < b.rps; });
}

}  // namespace

Finding read_sweep(const SweepRecord& sweep) {
  const std::string pool = sweep.strategy.empty()
                               ? std::string("the pool")
                               : fmt::format("the pool ({}, {})", sweep.strategy, sweep.pool_size);
  const loadgen::SweepStep* p = best(sweep.pool);
  const loadgen::SweepStep* s = best(sweep.single);
  std::string text;
  if (p != nullptr && s != nullptr && s->rps > 0) {
    text = fmt::format(
        "{} peaked at {} at {} connections, instance {} alone at {} at {}: the pool gives {:.2f}x "
        "one instance{}. ",
        pool, detail::rate(p->rps), p->connections, sweep.instance, detail::rate(s->rps),
        s->connections, p->rps / s->rps,
        p->rps < s->rps ? " (the balancer, or this host's CPU that the balancer, the instances and "
                          "the generator share, is the limit, not the instances)"
                        : "");
  }
  text += fmt::format("Pool: {}. Instance {}: {}.", loadgen::describe_knee(sweep.pool),
                      sweep.instance, loadgen::describe_knee(sweep.single));
  return detail::note(FindingKind::SweepPoolVsSingle, "sweep", std::move(text));
}

}  // namespace stampede::lab
