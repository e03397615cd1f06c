// The generator's option texts on their way into loadgen::RawOptions (loadgen/options.h): each
// option is declared once, with its flags, its description (default included) and the field it
// lands in, so nothing copies the texts field by field afterwards. CLI11 fills each text as
// typed; land() turns every given one into a RawValue named by its option (the name its errors
// use). Also used by `merge` for the thresholds, which it checks by the generator's rule.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "loadgen/options.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace stampede::loadgen {

// Not copyable or movable once declared: CLI11 keeps references to the texts, and the texts
// pointers to their fields, which must outlive land().
class RawOptionTexts {
 public:
  RawOptionTexts() = default;
  RawOptionTexts(const RawOptionTexts&) = delete;
  RawOptionTexts& operator=(const RawOptionTexts&) = delete;

  // Declares the option (or positional) `names` of one value, landing in `field` as given
  // `origin` (empty: the last of `names`, the long name where there are two).
  CLI::Option* add(CLI::App& app, const std::string& names, std::optional<RawValue>& field,
                   const std::string& help, std::string origin = {});
  // The same where, given twice, the last value wins instead of being an error
  // (add_last_wins_option, cli/command_line.h).
  CLI::Option* add_last_wins(CLI::App& app, const std::string& names,
                             std::optional<RawValue>& field, const std::string& help,
                             std::string origin = {});
  // A repeatable option of one value each time: every value lands in `field`, in order.
  CLI::Option* add_list(CLI::App& app, const std::string& names, std::vector<RawValue>& field,
                        const std::string& help);

  // After a successful parse: each given text into its field.
  void land();

 private:
  struct Text {
    std::optional<std::string> text;
    std::optional<RawValue>* field;
    std::string origin;
  };
  struct List {
    std::vector<std::string> texts;
    std::vector<RawValue>* field;
    std::string origin;
  };
  Text& text_for(const std::string& names, std::optional<RawValue>& field, std::string origin);
  std::deque<Text> texts_;
  std::deque<List> lists_;
};

// --max-p99, --max-error-rate and --min-rps, the same on the generator and `merge`: declared on
// `app`, landing in `into`'s fields of the same names (for loadgen::to_thresholds).
void add_threshold_options(CLI::App& app, RawOptionTexts& texts, RawOptions& into);

}  // namespace stampede::loadgen
