#include "cli/raw_options.h"

#include <CLI/CLI.hpp>

#include "cli/command_line.h"

namespace stampede::loadgen {
namespace {

std::string last_name(const std::string& names) {
  return names.substr(names.rfind(',') + 1);
}

}  // namespace

RawOptionTexts::Text& RawOptionTexts::text_for(const std::string& names,
                                               std::optional<RawValue>& field, std::string origin) {
  if (origin.empty()) origin = last_name(names);
  return texts_.emplace_back(Text{std::nullopt, &field, std::move(origin)});
}

CLI::Option* RawOptionTexts::add(CLI::App& app, const std::string& names,
                                 std::optional<RawValue>& field, const std::string& help,
                                 std::string origin) {
  return app.add_option(names, text_for(names, field, std::move(origin)).text, help);
}

CLI::Option* RawOptionTexts::add_last_wins(CLI::App& app, const std::string& names,
                                           std::optional<RawValue>& field, const std::string& help,
                                           std::string origin) {
  return add_last_wins_option(app, names, text_for(names, field, std::move(origin)).text, help);
}

CLI::Option* RawOptionTexts::add_list(CLI::App& app, const std::string& names,
                                      std::vector<RawValue>& field, const std::string& help) {
  List& list = lists_.emplace_back(List{{}, &field, last_name(names)});
  return app.add_option(names, list.texts, help)->allow_extra_args(false);
}

void RawOptionTexts::land() {
  for (const Text& t : texts_) {
    if (t.text) *t.field = RawValue{*t.text, t.origin};
  }
  for (const List& l : lists_) {
    for (const std::string& text : l.texts)
      l.field->push_back({text, l.origin});
  }
}

void add_threshold_options(CLI::App& app, RawOptionTexts& texts, RawOptions& into) {
  texts.add_last_wins(app, "--max-p99", into.max_p99,
                      "Exit with status 3 if the p99 latency exceeds this, ms; default none");
  texts.add_last_wins(
      app, "--max-error-rate", into.max_error_rate,
      "Exit with status 3 if more than this percentage of requests fail, %; default none");
  texts.add_last_wins(
      app, "--min-rps", into.min_rps,
      "Exit with status 3 if the effective rate is below this, requests/s; default none");
}

}  // namespace stampede::loadgen
