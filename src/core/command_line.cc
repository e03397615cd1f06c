#include "core/command_line.h"

#include <CLI/CLI.hpp>

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

}  // namespace stampede
