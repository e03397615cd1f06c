// Test helpers: a small well-formedness check for the report's HTML and SVG, and extraction of
// attribute values. Not an HTML parser: it knows the subset the report writes.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace stampede::report::testing {

// The end ('>') of the tag starting at open, skipping quoted attribute values; npos if none.
inline std::size_t tag_end(std::string_view s, std::size_t open) {
  char quote = 0;
  for (std::size_t i = open + 1; i < s.size(); ++i) {
    const char c = s[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '<') {
      return std::string_view::npos;  // a raw '<' inside a tag: not well-formed
    } else if (c == '>') {
      return i;
    }
  }
  return std::string_view::npos;
}

inline bool is_void_element(const std::string& name) {
  return name == "meta" || name == "br" || name == "hr" || name == "img" || name == "link" ||
         name == "input";
}

// "" when every opened tag is closed in order (void elements and "/>" excepted; the content of
// <script> and <style> is skipped), otherwise a description of the first problem.
inline std::string check_balanced(std::string_view s) {
  std::vector<std::string> stack;
  std::size_t i = 0;
  while ((i = s.find('<', i)) != std::string_view::npos) {
    if (s.substr(i, 2) == "<!") {
      i = s.find('>', i);
      if (i == std::string_view::npos) return "unterminated declaration";
      continue;
    }
    const std::size_t end = tag_end(s, i);
    if (end == std::string_view::npos) return "unterminated tag at " + std::to_string(i);
    std::string_view tag = s.substr(i + 1, end - i - 1);
    const bool closing = !tag.empty() && tag.front() == '/';
    if (closing) tag.remove_prefix(1);
    const std::string name(tag.substr(0, tag.find_first_of(" \t\n/")));
    if (name.empty()) return "empty tag name at " + std::to_string(i);
    if (closing) {
      if (stack.empty() || stack.back() != name) {
        return "</" + name + "> closes <" + (stack.empty() ? "" : stack.back()) + ">";
      }
      stack.pop_back();
    } else if (tag.back() != '/' && !is_void_element(name)) {
      stack.push_back(name);
      if (name == "script" || name == "style") {
        const std::size_t close = s.find("</" + name + ">", end);
        if (close == std::string_view::npos) return "unclosed <" + name + ">";
        i = close;
        continue;
      }
    }
    i = end + 1;
  }
  return stack.empty() ? "" : "unclosed <" + stack.back() + ">";
}

// Every <svg ...>...</svg> element of a page.
inline std::vector<std::string> svg_elements(const std::string& html) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while ((i = html.find("<svg", i)) != std::string::npos) {
    const std::size_t end = html.find("</svg>", i);
    if (end == std::string::npos) break;
    out.push_back(html.substr(i, end + 6 - i));
    i = end + 6;
  }
  return out;
}

// A start tag: its name, attributes (values as written, still escaped) and the text up to the
// next tag.
struct Tag {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::string text;
};

// Every start tag of s, in document order (attribute values must be double-quoted).
inline std::vector<Tag> start_tags(std::string_view s) {
  std::vector<Tag> out;
  for (std::size_t i = s.find('<'); i != std::string_view::npos; i = s.find('<', i + 1)) {
    const std::size_t end = tag_end(s, i);
    if (end == std::string_view::npos || s[i + 1] == '/' || s[i + 1] == '!') continue;
    const std::string_view body = s.substr(i + 1, end - i - 1);
    Tag tag;
    std::size_t k = body.find_first_of(" \t\n/");
    tag.name = std::string(body.substr(0, k));
    while (k != std::string_view::npos && (k = body.find('=', k)) != std::string_view::npos) {
      const std::size_t name_start = body.rfind(' ', k) + 1;
      const std::size_t value_end = body.find('"', k + 2);
      if (value_end == std::string_view::npos) break;
      tag.attrs[std::string(body.substr(name_start, k - name_start))] =
          std::string(body.substr(k + 2, value_end - k - 2));
      k = value_end + 1;
    }
    const std::size_t next = s.find('<', end);
    tag.text = std::string(s.substr(end + 1, next == std::string_view::npos ? 0 : next - end - 1));
    out.push_back(std::move(tag));
  }
  return out;
}

inline std::size_t count(std::string_view haystack, std::string_view needle) {
  std::size_t n = 0;
  for (std::size_t i = haystack.find(needle); i != std::string_view::npos;
       i = haystack.find(needle, i + needle.size())) {
    ++n;
  }
  return n;
}

}  // namespace stampede::report::testing
