// The names of an enum's values, from one table per enum: the name a value prints as, the value a
// text parses to and the list of names an error message shows all read the same table, so the
// three cannot drift apart.
//
// A table is a constexpr array of {value, name}, in the order an error message lists the names
// (joined_names). Each value stands in it once; a name may stand for several values (two
// verdicts printed alike), and parse_name then gives the first. Names are not empty. Pure,
// header-only, no allocation but joined_names' result; any thread.
//
//   constexpr EnumName<Strategy> kStrategyNames[] = {{Strategy::RoundRobin, "rr"}, ...};
//   name_of(kStrategyNames, Strategy::RoundRobin)  -> "rr"
//   parse_name(kStrategyNames, "rr")               -> Strategy::RoundRobin
//   joined_names(kStrategyNames, ", ", " or ")     -> "rr, least, ... or random"
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace stampede {

template <class E>
struct EnumName {
  E value;
  std::string_view name;
};

// The name of `value`; none when the table does not hold it (a value the caller names itself).
template <class E, std::size_t N>
constexpr std::optional<std::string_view> find_name(const EnumName<E> (&table)[N], E value) {
  for (const EnumName<E>& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return std::nullopt;
}

// The name of `value`; "?" when the table does not hold it (a value cast from a bad number).
template <class E, std::size_t N>
constexpr std::string_view name_of(const EnumName<E> (&table)[N], E value) {
  return find_name(table, value).value_or("?");
}

// The value named exactly `text` (case and spaces count); none for an unknown or empty text.
template <class E, std::size_t N>
constexpr std::optional<E> parse_name(const EnumName<E> (&table)[N], std::string_view text) {
  for (const EnumName<E>& entry : table) {
    if (!text.empty() && entry.name == text) return entry.value;
  }
  return std::nullopt;
}

// Whether entry i holds the enum's value i, for every entry: a table that follows its enum, to be
// static_assert'ed, so that a value added to the enum before its last one, with no name, fails to
// build as it did in a switch (-Wswitch). A value added at the end still needs its own entry:
// name_of says "?" without one.
template <class E, std::size_t N>
constexpr bool in_enum_order(const EnumName<E> (&table)[N]) {
  for (std::size_t i = 0; i < N; ++i) {
    if (static_cast<std::size_t>(table[i].value) != i) return false;
  }
  return true;
}

// Every name in table order, `separator` between two and `last` before the last one:
// ("a, b or c" with ", " and " or ").
template <class E, std::size_t N>
std::string joined_names(const EnumName<E> (&table)[N], std::string_view separator,
                         std::string_view last) {
  std::string out;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) out += i + 1 == N ? last : separator;
    out += table[i].name;
  }
  return out;
}

}  // namespace stampede
