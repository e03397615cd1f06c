// deploy/kubernetes: the manifests parse (python3-yaml), and the command each Indexed Job pod
// runs, with the pod's environment, makes shards whose logs `stampede merge -` turns into the
// one exact report. No cluster here: the pods are processes on loopback.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/mpi_env.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "support/test_server.h"

namespace stampede::testing {
namespace {

using namespace std::chrono_literals;
using Json = nlohmann::json;

const std::string kDeploy = std::string(STAMPEDE_SOURCE_DIR) + "/deploy/kubernetes/";

// The YAML documents of `file` as JSON, through python3-yaml (a test dependency).
Json load_yaml(const std::string& file) {
  const RunResult r = run_command(
      {"/usr/bin/python3", "-c",
       "import json, sys, yaml; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))",
       kDeploy + file},
      20s);
  EXPECT_EQ(r.status, 0) << file << ": " << r.err << " (needs python3-yaml: make test-deps)";
  return Json::parse(r.out, nullptr, false);
}

// The one document of `file`, which must be a `kind` of `api_version`; null (and a test failure)
// when the file holds no document or more than one.
Json load_manifest(const std::string& file, const std::string& api_version,
                   const std::string& kind) {
  const Json docs = load_yaml(file);
  if (!docs.is_array() || docs.size() != 1) {
    ADD_FAILURE() << file << ": expected one document, got " << docs.dump();
    return nullptr;
  }
  EXPECT_EQ(docs[0]["apiVersion"], api_version) << file;
  EXPECT_EQ(docs[0]["kind"], kind) << file;
  return docs[0];
}

// The value of the environment variable `name` in a container spec.
std::string env_of(const Json& container, const std::string& name) {
  for (const Json& e : container.at("env"))
    if (e.at("name") == name) return e.at("value");
  ADD_FAILURE() << "no " << name << " in " << container.dump();
  return {};
}

TEST(KubernetesManifests, IndexedJobPodsMakeShardsThatMergeIntoTheExactRun) {
  const Json job = load_manifest("indexed-job.yaml", "batch/v1", "Job");
  ASSERT_FALSE(job.is_null());
  EXPECT_EQ(job["spec"]["completionMode"], "Indexed");
  const Json& pod = job["spec"]["template"]["spec"];
  EXPECT_EQ(pod["restartPolicy"], "Never");
  ASSERT_EQ(pod["containers"].size(), 1u);
  const Json& container = pod["containers"][0];
  ASSERT_EQ(container["command"], Json::array({"sh", "-c"}));
  ASSERT_EQ(container["args"].size(), 1u);
  const std::string script = container["args"][0];
  const int shards = std::stoi(env_of(container, "SHARDS"));
  EXPECT_EQ(job["spec"]["completions"], shards);
  EXPECT_EQ(job["spec"]["parallelism"], shards);
  ASSERT_EQ(shards, 4);

  // Each pod's exact command, with the pod's environment; OPTIONS small enough for a test (the
  // manifest's run 60 s), the URL this machine's server, START_AT one second ahead.
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  const std::string url = fmt::format("http://127.0.0.1:{}/", server->port());
  const double start_at =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count() +
      1.0;
  const std::string bin_dir = std::filesystem::path(STAMPEDE_BINARY).parent_path();
  const char* path = std::getenv("PATH");
  std::vector<std::unique_ptr<ChildProcess>> pods;
  for (int index = 0; index < shards; ++index) {
    pods.push_back(std::make_unique<ChildProcess>(std::vector<std::string>{
        "/usr/bin/env", "JOB_COMPLETION_INDEX=" + std::to_string(index),
        "SHARDS=" + std::to_string(shards), fmt::format("START_AT={:.3f}", start_at), "URL=" + url,
        "OPTIONS=-k -c 4 -n 2001", "PATH=" + bin_dir + ":" + (path ? path : "/usr/bin:/bin"), "sh",
        "-c", script}));
  }
  TempDir dir;
  const std::string logs = dir.path() + "/logs";
  {
    std::ofstream out(logs);
    for (auto& pod_process : pods) {
      ASSERT_EQ(pod_process->wait(30s), 0) << pod_process->stderr_text();
      out << pod_process->stdout_text();  // kubectl logs: each pod's stdout
    }
  }
  const RunResult merged = run_command(
      {"/bin/sh", "-c", std::string(STAMPEDE_BINARY) + " merge --json - < '" + logs + "'"}, 30s);
  ASSERT_EQ(merged.status, 0) << merged.err;
  const Json report = Json::parse(merged.out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << merged.out;
  EXPECT_EQ(report["totalRequests"], 2001);
  EXPECT_EQ(report["totalErrors"], 0);
  EXPECT_EQ(report["merge"]["shards"].size(), 4u);
  EXPECT_EQ(server->served(), 2001u);
}

TEST(KubernetesManifests, MpiJobLauncherRunsOneRankPerWorkerThroughMpirun) {
  const Json job = load_manifest("mpijob.yaml", "kubeflow.org/v2beta1", "MPIJob");
  ASSERT_FALSE(job.is_null());
  EXPECT_EQ(job["spec"]["slotsPerWorker"], 1);
  const Json& replicas = job["spec"]["mpiReplicaSpecs"];
  EXPECT_EQ(replicas["Launcher"]["replicas"], 1);
  const Json& launcher = replicas["Launcher"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(launcher["command"], Json::array({"sh", "-c"}));
  const std::string script = launcher["args"][0];
  EXPECT_THAT(script, ::testing::HasSubstr("mpirun --allow-run-as-root -np \"$RANKS\" stampede "));
  EXPECT_EQ(script.find("--shard"), std::string::npos) << "the rank is the shard";
  EXPECT_EQ(replicas["Worker"]["replicas"], std::stoi(env_of(launcher, "RANKS")));
  const Json& worker = replicas["Worker"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(worker["command"][0], "/usr/sbin/sshd");
  EXPECT_EQ(worker["image"], launcher["image"]);

  // The launcher's exact command, on this machine: two ranks instead of the workers (mpirun's
  // oversubscription allowed through its environment, as the operator's hostfile would).
  if (run_command({"/bin/sh", "-c", "command -v mpirun"}, 10s).status != 0) {
    GTEST_SKIP() << "mpirun is not installed (Debian: openmpi-bin): the command is not run";
  }
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  const std::string bin_dir = std::filesystem::path(STAMPEDE_BINARY).parent_path();
  const char* path = std::getenv("PATH");
  std::vector<std::string> argv = mpi_sanitizer_env();
  if (argv.empty()) argv.push_back("/usr/bin/env");
  const std::vector<std::string> pod = {"RANKS=2",
                                        fmt::format("URL=http://127.0.0.1:{}/", server->port()),
                                        "OPTIONS=-k -c 2 -n 1001 --json",
                                        "OMPI_MCA_rmaps_base_oversubscribe=1",
                                        "PATH=" + bin_dir + ":" + (path ? path : "/usr/bin:/bin"),
                                        "sh",
                                        "-c",
                                        script};
  argv.insert(argv.end(), pod.begin(), pod.end());
  const RunResult run = run_command(argv, 60s);
  ASSERT_EQ(run.status, 0) << run.err;
  const Json report = Json::parse(run.out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << run.out;
  EXPECT_EQ(report["totalRequests"], 1001);
  EXPECT_EQ(report["merge"]["shards"].size(), 2u);
  EXPECT_EQ(server->served(), 1001u);
}

}  // namespace
}  // namespace stampede::testing
