// help_entries: the entries of a CLI11 --help text ("Options:" and "Positionals:"), for the tests
// that hold --help to what it must say (help_test.cc) and to the man pages (manual_test.cc).
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace stampede {

// One entry of CLI11's help: the names column ("-c,--cores N") and the description.
struct HelpEntry {
  std::string names;
  std::string description;
};

inline std::string trim_spaces(const std::string& text) {
  const std::size_t first = text.find_first_not_of(' ');
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

// The entries of the "Options:" and "Positionals:" sections. An entry starts two columns in; its
// description follows two or more spaces, or is on the next line(s), indented further, when the
// names fill the column.
inline std::vector<HelpEntry> help_entries(const std::string& help) {
  std::vector<HelpEntry> entries;
  std::istringstream in(help);
  bool in_section = false;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    if (line[0] != ' ') {
      in_section = line == "Options:" || line == "Positionals:";
      continue;
    }
    if (!in_section) continue;
    if (line.size() > 2 && line[2] != ' ') {
      const std::size_t gap = line.find("  ", 2);
      HelpEntry entry;
      entry.names =
          trim_spaces(line.substr(2, gap == std::string::npos ? std::string::npos : gap - 2));
      if (gap != std::string::npos) entry.description = trim_spaces(line.substr(gap));
      entries.push_back(entry);
    } else if (!entries.empty()) {
      std::string& description = entries.back().description;
      description += (description.empty() ? "" : " ") + trim_spaces(line);
    }
  }
  return entries;
}

}  // namespace stampede
