// Checks of a text (a report, a request's bytes, a page) for the pieces it must and must not
// hold, each piece named in the failure, the text shown once: for tests that look for several
// lines in one output.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string_view>

namespace stampede::testing {

// Success when `text` holds every one of `parts`; otherwise a failure naming the missing ones.
inline ::testing::AssertionResult contains_all(std::string_view text,
                                               std::initializer_list<std::string_view> parts) {
  ::testing::AssertionResult result = ::testing::AssertionSuccess();
  for (const std::string_view part : parts) {
    if (text.find(part) != std::string_view::npos) continue;
    if (result) result = ::testing::AssertionFailure() << "in:\n" << text << "\nmissing:";
    result << "\n  " << part;
  }
  return result;
}

// Success when `text` holds none of `parts`; otherwise a failure naming those it holds.
inline ::testing::AssertionResult contains_none(std::string_view text,
                                                std::initializer_list<std::string_view> parts) {
  ::testing::AssertionResult result = ::testing::AssertionSuccess();
  for (const std::string_view part : parts) {
    if (text.find(part) == std::string_view::npos) continue;
    if (result) result = ::testing::AssertionFailure() << "in:\n" << text << "\nunexpected:";
    result << "\n  " << part;
  }
  return result;
}

}  // namespace stampede::testing
