#include "ws/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace stampede::ws {
namespace {

TEST(Utf8, AcceptsWellFormedText) {
  EXPECT_TRUE(valid_utf8(""));
  EXPECT_TRUE(valid_utf8("hello, world: long enough for the 8-byte path"));
  EXPECT_TRUE(valid_utf8("\xc3\xa9t\xc3\xa9"));                // été
  EXPECT_TRUE(valid_utf8("\xe2\x82\xac"));                     // U+20AC
  EXPECT_TRUE(valid_utf8("\xf0\x9f\x98\x80"));                 // U+1F600
  EXPECT_TRUE(valid_utf8("\xed\x9f\xbf"));                     // U+D7FF, below the surrogates
  EXPECT_TRUE(valid_utf8("\xee\x80\x80"));                     // U+E000, above them
  EXPECT_TRUE(valid_utf8("\xf4\x8f\xbf\xbf"));                 // U+10FFFF
  EXPECT_TRUE(valid_utf8("abcdefgh\xce\xba\xe1\xbd\xb9xyz"));  // after an ASCII word
}

TEST(Utf8, RejectsMalformedText) {
  EXPECT_FALSE(valid_utf8("\x80"));              // lone continuation
  EXPECT_FALSE(valid_utf8("\xc0\xaf"));          // overlong '/'
  EXPECT_FALSE(valid_utf8("\xe0\x80\xaf"));      // overlong, 3 bytes
  EXPECT_FALSE(valid_utf8("\xf0\x80\x80\xaf"));  // overlong, 4 bytes
  EXPECT_FALSE(valid_utf8("\xed\xa0\x80"));      // U+D800 surrogate
  EXPECT_FALSE(valid_utf8("\xf4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(valid_utf8("\xf5\x80\x80\x80"));  // F5 never leads
  EXPECT_FALSE(valid_utf8("\xff"));
  EXPECT_FALSE(valid_utf8("\xc3"));  // truncated at the end
  EXPECT_FALSE(valid_utf8("\xe2\x82"));
  EXPECT_FALSE(valid_utf8("\xc3\x28"));                    // bad continuation
  EXPECT_FALSE(valid_utf8("abcdefghij\xce\xba\xe1\xbd"));  // truncated after ASCII
  EXPECT_FALSE(valid_utf8(std::string("abcdefg\x80") + "abcdefgh"));
}

}  // namespace
}  // namespace stampede::ws
