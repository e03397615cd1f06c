#include "cli/command_line.h"

#include <CLI/CLI.hpp>
#include <algorithm>

namespace stampede {

Result<std::optional<std::string>> parse_cli(CLI::App& app, int argc, const char* const* argv,
                                             DescribeParseError describe) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    return std::optional<std::string>(app.help());
  } catch (const CLI::ParseError& e) {
    return make_error(describe != nullptr ? describe(e) : std::string(e.what()));
  }
  return std::optional<std::string>();
}

Result<std::optional<std::string>> parse_cli(CLI::App& app, const std::vector<std::string>& args) {
  std::vector<const char*> argv;
  for (const std::string& a : args)
    argv.push_back(a.c_str());
  return parse_cli(app, static_cast<int>(argv.size()), argv.data());
}

Result<void> refuse_empty_values(const CLI::App& app,
                                 const std::vector<std::string>& may_be_empty) {
  for (const CLI::Option* option : app.get_options()) {
    if (option->count() == 0 || option->get_expected_min() == 0) continue;  // absent, or a flag
    const std::string name = option->get_name();
    if (std::find(may_be_empty.begin(), may_be_empty.end(), name) != may_be_empty.end()) continue;
    for (const std::string& value : option->results()) {
      if (value.empty()) return make_error(name + ": empty value");
    }
  }
  return {};
}

}  // namespace stampede
