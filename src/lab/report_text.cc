// The text report (report.h).
#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "lab/report.h"
#include "lab/tables.h"

namespace stampede::lab {
namespace {

// Display width of UTF-8 text: code points (the tables hold no wide characters).
std::size_t width(const std::string& s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

bool numeric(const std::string& cell) {
  return !cell.empty() &&
         (std::isdigit(static_cast<unsigned char>(cell[0])) || cell == "-" || cell[0] == 'x');
}

void write_table(const report::Table& table, std::ostream& out) {
  const std::size_t columns = table.header.size();
  std::vector<std::size_t> widths(columns, 0);
  std::vector<bool> right(columns, true);
  for (std::size_t c = 0; c < columns; ++c) {
    widths[c] = width(table.header[c]);
    for (const auto& row : table.rows) {
      if (c >= row.size()) continue;
      widths[c] = std::max(widths[c], width(row[c]));
      if (!row[c].empty() && !numeric(row[c])) right[c] = false;
    }
  }
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string text = " ";
    for (std::size_t c = 0; c < columns; ++c) {
      const std::string cell = c < cells.size() ? cells[c] : "";
      const std::string pad(widths[c] - width(cell), ' ');
      text += "  " + (right[c] ? pad + cell : cell + pad);
    }
    while (!text.empty() && text.back() == ' ')
      text.pop_back();
    fmt::print(out, "{}\n", text);
  };
  fmt::print(out, "\n{}\n", table.title);
  line(table.header);
  for (const auto& row : table.rows)
    line(row);
}

std::string load_line(const LabConfig& c) {
  return fmt::format(
      "load: {} connections, keep-alive, closed loop, {:.1f} s per even/slow run, generator "
      "threads {}",
      c.load.connections, std::chrono::duration<double>(c.load.duration).count(), c.load.cores);
}

}  // namespace

void write_text(const LabResult& result, std::ostream& out) {
  std::string pool;
  for (std::size_t i = 0; i < result.config.instances.size(); ++i) {
    pool += fmt::format("{}{} {}", i ? ", " : "", result.config.instances[i].name,
                        i < result.addresses.size() ? result.addresses[i] : "");
  }
  fmt::print(out, "stampede lab: {} instances ({}) behind {}\n", result.config.instances.size(),
             pool, result.balancer);
  fmt::print(out, "{}\n", load_line(result.config));
  for (const report::Table& table : scenario_tables(result))
    write_table(table, out);
  fmt::print(out, "\nfindings\n");
  std::size_t failed = 0;
  for (Verdict verdict : {Verdict::Fail, Verdict::Note}) {
    for (const Finding& f : result.findings) {
      if (f.verdict != verdict) continue;
      failed += verdict == Verdict::Fail ? 1 : 0;
      fmt::print(out, "  {}  {}: {}\n", verdict == Verdict::Fail ? "FAIL" : "note", f.scope,
                 f.text);
    }
  }
  if (failed == 0) {
    fmt::print(out, "\nresult: every check holds ({} runs, {:.1f} s)\n", result.runs.size(),
               result.wall_seconds);
  } else {
    fmt::print(out, "\nresult: {} check{} failed ({} runs, {:.1f} s)\n", failed,
               failed == 1 ? "" : "s", result.runs.size(), result.wall_seconds);
  }
}

}  // namespace stampede::lab
