#include "core/json_input.h"

#include <string>
#include <utility>

namespace stampede {

Expected<nlohmann::json> parse_json_input(std::string_view text) {
  using Json = nlohmann::json;
  bool too_deep = false;
  // `depth` is the number of arrays and objects around the value that starts here; returning
  // false discards that value (and whatever it holds) instead of building it.
  const Json::parser_callback_t bound = [&too_deep](int depth, Json::parse_event_t event, Json&) {
    const bool opens =
        event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start;
    if (opens && depth >= kMaxJsonDepth) too_deep = true;
    return !too_deep;
  };
  Json doc = Json::parse(text.begin(), text.end(), bound, false);
  if (too_deep) {
    std::string message = "JSON nested deeper than ";  // built in steps: GCC 12 warns on a + b + c
    message += std::to_string(kMaxJsonDepth);
    message += " levels";
    return make_error(std::move(message));
  }
  if (doc.is_discarded()) return make_error("invalid JSON");
  return doc;
}

}  // namespace stampede
