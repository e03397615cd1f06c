// print_reports: the report on stdout in the chosen format, then the HTML page; a page that cannot
// be written is one error line and false.
#include "cli/report_output.h"

#include <gtest/gtest.h>

#include <string>

namespace stampede {
namespace {

struct ReportFake {
  std::string name;
  std::string* page_path = nullptr;  // where the HTML writer was asked to write
};

void report_fake_text(const ReportFake& r, std::ostream& out) {
  out << "text " << r.name << "\n";
}
void report_fake_json(const ReportFake& r, std::ostream& out) {
  out << "{\"name\":\"" << r.name << "\"}\n";
}
Expected<void> report_fake_html(const ReportFake& r, const std::string& path) {
  *r.page_path = path;
  if (path == "/unwritable") return make_error("cannot write " + path + " for " + r.name);
  return {};
}

struct PrintedReports {
  bool ok;
  std::string out, err, page_path;
  bool operator==(const PrintedReports&) const = default;
  friend std::ostream& operator<<(std::ostream& o, const PrintedReports& p) {
    return o << "ok " << p.ok << ", out '" << p.out << "', err '" << p.err << "', page '"
             << p.page_path << "'";
  }
};

PrintedReports print_fake_reports(bool json, const std::string& html,
                                  std::string_view prefix = {}) {
  const ReportWriters<ReportFake> writers{report_fake_text, report_fake_json, report_fake_html};
  std::string page_path;
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const bool ok = print_reports(ReportFake{"run", &page_path}, writers, json, html, prefix);
  std::string out = ::testing::internal::GetCapturedStdout();
  return {ok, std::move(out), ::testing::internal::GetCapturedStderr(), page_path};
}

TEST(PrintReports, TheReportOnStdoutThenThePageWhenAsked) {
  const std::string json = "{\"name\":\"run\"}\n";
  EXPECT_EQ(print_fake_reports(false, ""), (PrintedReports{true, "text run\n", "", ""}));
  EXPECT_EQ(print_fake_reports(true, ""), (PrintedReports{true, json, "", ""}));
  EXPECT_EQ(print_fake_reports(true, "page.html"), (PrintedReports{true, json, "", "page.html"}));
}

TEST(PrintReports, APageThatCannotBeWrittenIsOneLineAfterTheReport) {
  EXPECT_EQ(print_fake_reports(false, "/unwritable", "lab: "),
            (PrintedReports{false, "text run\n",
                            "stampede: lab: cannot write /unwritable for run\n", "/unwritable"}));
}

}  // namespace
}  // namespace stampede
