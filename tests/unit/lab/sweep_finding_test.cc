// The sweep's finding (read_sweep): the pool against the single instance, with the figures.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lab/findings.h"
#include "support/sweep_step.h"

namespace stampede::lab {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(SweepFinding, ThePoolAgainstOneInstanceWithBothKnees) {
  SweepRecord sweep;
  sweep.strategy = "rr";
  sweep.instance = "a";
  sweep.pool_size = 3;
  sweep.pool = {stampede::testing::sweep_step(1, 1000, 1),
                stampede::testing::sweep_step(4, 3900, 1),
                stampede::testing::sweep_step(16, 3000 * 3, 1.7)};
  sweep.single = {stampede::testing::sweep_step(1, 1000, 1),
                  stampede::testing::sweep_step(4, 3000, 1.3),
                  stampede::testing::sweep_step(16, 3050, 5.2)};
  const Finding f = read_sweep(sweep);
  EXPECT_EQ(kind_name(f.kind), "sweep-pool-vs-single");
  EXPECT_EQ(f.verdict, Verdict::Note);
  EXPECT_THAT(f.text, HasSubstr("the pool (rr, 3) peaked at 9000 req/s at 16 connections, "
                                "instance a alone at 3050 req/s at 16: the pool gives 2.95x"));
  EXPECT_THAT(f.text, Not(HasSubstr("is the limit")));
  EXPECT_THAT(f.text, HasSubstr("Pool: no knee up to 16 connections"));
  EXPECT_THAT(f.text, HasSubstr("Instance a: knee at 4 connections"));
}

TEST(SweepFinding, APoolSlowerThanOneInstanceNamesTheSharedLimit) {
  SweepRecord sweep;
  sweep.strategy = "rr";
  sweep.instance = "a";
  sweep.pool_size = 3;
  sweep.pool = {stampede::testing::sweep_step(1, 500, 1), stampede::testing::sweep_step(2, 510, 2)};
  sweep.single = {stampede::testing::sweep_step(1, 1000, 1),
                  stampede::testing::sweep_step(2, 1900, 1.05)};
  const Finding f = read_sweep(sweep);
  EXPECT_THAT(f.text, HasSubstr("the pool gives 0.27x one instance (the balancer, or this host's"));
  EXPECT_THAT(f.text, HasSubstr("Pool: knee at 1 connection:"));
}

}  // namespace
}  // namespace stampede::lab
