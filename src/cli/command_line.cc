#include "cli/command_line.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <string_view>

#include "cli/command_doc.h"

namespace stampede {

Expected<std::optional<std::string>> parse_cli(CLI::App& app, int argc, const char* const* argv,
                                               DescribeParseError describe) {
  if (argc == 2 && std::string_view(argv[1]) == kDescribeArgument) {
    throw CommandLineDescribed(document_command_line(app));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    return std::optional<std::string>(app.help());
  } catch (const CLI::ParseError& e) {
    return make_error(describe != nullptr ? describe(e) : std::string(e.what()));
  }
  return std::optional<std::string>();
}

Expected<std::optional<std::string>> parse_cli(CLI::App& app,
                                               const std::vector<std::string>& args) {
  std::vector<const char*> argv;
  for (const std::string& a : args)
    argv.push_back(a.c_str());
  return parse_cli(app, static_cast<int>(argv.size()), argv.data());
}

CLI::Option* add_last_wins_option(CLI::App& app, const std::string& names,
                                  std::optional<std::string>& into, const std::string& help) {
  return app.add_option(names, into, help)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

void add_io_option(CLI::App& app, std::optional<std::string>& text) {
  app.add_option("--io", text,
                 std::string("What the event loops wait with: uring (io_uring) or epoll; where "
                             "io_uring is unavailable, epoll with a warning; default ") +
                     std::string(net::io_backend_name(net::kDefaultIoBackend)))
      ->type_name("uring|epoll");
}

Expected<net::IoBackend> parse_io_option(const std::optional<std::string>& text) {
  if (!text) return net::kDefaultIoBackend;
  if (auto backend = net::parse_io_backend(*text)) return *backend;
  return make_error("--io: expected uring or epoll, got '" + *text + "'");
}

net::IoBackend settle_io_backend(net::IoBackend requested) {
  const net::IoBackendChoice choice = net::choose_io_backend(requested);
  if (!choice.fallback_reason.empty()) print_error_line(choice.fallback_reason);
  return choice.backend;
}

Expected<void> refuse_empty_values(const CLI::App& app,
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
