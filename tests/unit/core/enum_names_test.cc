#include "core/enum_names.h"

#include <gtest/gtest.h>

namespace stampede {
namespace {

enum class Colour { Red, Green, Blue, Grey, Unnamed };

// Grey prints as Green does (two values, one name); Unnamed is not in the table.
constexpr EnumName<Colour> kColours[] = {{Colour::Red, "red"},
                                         {Colour::Green, "green"},
                                         {Colour::Blue, "blue"},
                                         {Colour::Grey, "green"}};

TEST(EnumNames, NamesEachValueFromTheTable) {
  EXPECT_EQ(name_of(kColours, Colour::Red), "red");
  EXPECT_EQ(name_of(kColours, Colour::Blue), "blue");
  EXPECT_EQ(name_of(kColours, Colour::Grey), "green");
  static_assert(name_of(kColours, Colour::Green) == "green");
}

TEST(EnumNames, AValueOutsideTheTableHasNoName) {
  EXPECT_EQ(find_name(kColours, Colour::Unnamed), std::nullopt);
  EXPECT_EQ(name_of(kColours, Colour::Unnamed), "?");
  EXPECT_EQ(name_of(kColours, static_cast<Colour>(97)), "?");
}

TEST(EnumNames, ParsesEachNameBackToItsValue) {
  for (const EnumName<Colour>& entry : kColours) {
    if (entry.value == Colour::Grey) continue;  // "green" is Green's first
    EXPECT_EQ(parse_name(kColours, entry.name), entry.value) << entry.name;
  }
  EXPECT_EQ(parse_name(kColours, "green"), Colour::Green);
}

TEST(EnumNames, RefusesUnknownEmptyAndNearlyRightText) {
  for (std::string_view bad : {"", "purple", "Red", "red ", " red", "re", "redd", "red,blue"}) {
    EXPECT_EQ(parse_name(kColours, bad), std::nullopt) << "'" << bad << "'";
  }
  EXPECT_EQ(parse_name(kColours, std::string_view("red\0", 4)), std::nullopt);
}

TEST(EnumNames, JoinsTheNamesInTableOrder) {
  EXPECT_EQ(joined_names(kColours, ", ", " or "), "red, green, blue or green");
  EXPECT_EQ(joined_names(kColours, "|", "|"), "red|green|blue|green");
  constexpr EnumName<Colour> kOne[] = {{Colour::Red, "red"}};
  EXPECT_EQ(joined_names(kOne, ", ", " or "), "red");
}

TEST(EnumNames, KnowsATableThatFollowsItsEnum) {
  EXPECT_TRUE(in_enum_order(kColours));
  constexpr EnumName<Colour> kSwapped[] = {{Colour::Green, "green"}, {Colour::Red, "red"}};
  EXPECT_FALSE(in_enum_order(kSwapped));
  constexpr EnumName<Colour> kGap[] = {{Colour::Red, "red"}, {Colour::Blue, "blue"}};
  EXPECT_FALSE(in_enum_order(kGap));
  static_assert(in_enum_order(kColours), "usable in a static_assert");
}

}  // namespace
}  // namespace stampede
