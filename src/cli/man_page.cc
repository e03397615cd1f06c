#include "cli/man_page.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <vector>

namespace stampede {
namespace {

struct ProseSection {
  std::string heading;
  std::vector<std::string> lines;
};

bool is_heading(const std::string& line) {
  if (line.empty() || !std::isupper(static_cast<unsigned char>(line[0]))) return false;
  return std::all_of(line.begin(), line.end(), [](char c) {
    return std::isupper(static_cast<unsigned char>(c)) || c == ' ';
  });
}

std::vector<ProseSection> split_prose(std::string_view prose) {
  std::vector<ProseSection> sections;
  std::istringstream in{std::string(prose)};
  for (std::string line; std::getline(in, line);) {
    if (is_heading(line)) {
      sections.push_back({line, {}});
    } else {
      if (sections.empty()) sections.push_back({"DESCRIPTION", {}});
      sections.back().lines.push_back(line);
    }
  }
  return sections;
}

// A section's lines as roff: paragraphs (.PP) and literal blocks (.nf in .RS).
void write_section_body(const std::vector<std::string>& lines, std::ostringstream& out) {
  bool in_paragraph = false;
  bool in_literal = false;
  for (const std::string& line : lines) {
    const bool literal = line.rfind("  ", 0) == 0;
    const bool blank = line.find_first_not_of(' ') == std::string::npos;
    if (in_literal && !literal) {
      out << ".fi\n.RE\n";
      in_literal = false;
    }
    if (blank) {
      in_paragraph = false;
      continue;
    }
    if (literal) {
      if (!in_literal) out << ".PP\n.RS 4\n.nf\n";
      in_literal = true;
      out << roff_escape(line.substr(line.find_first_not_of(' '))) << "\n";
      continue;
    }
    if (!in_paragraph) out << ".PP\n";
    in_paragraph = true;
    out << roff_escape(line) << "\n";
  }
  if (in_literal) out << ".fi\n.RE\n";
}

std::string upper(std::string text) {
  for (char& c : text)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

// "\fB\-c\fR, \fB\-\-cores\fR \fIN\fR": the names column of --help.
std::string option_tag(const OptionDoc& o) {
  std::string tag;
  for (const std::string& name : o.names) {
    if (!tag.empty()) tag += ", ";
    tag += (o.positional ? "\\fI" : "\\fB") + roff_escape(name) + "\\fR";
  }
  if (!o.positional && !o.value.empty()) tag += " \\fI" + roff_escape(o.value) + "\\fR";
  if (o.repeatable) tag += " ...";
  return tag;
}

void write_synopsis(const CommandDoc& doc, std::ostringstream& out) {
  out << ".SH SYNOPSIS\n.B " << roff_escape(command_name(doc)) << "\n[\\fIOPTIONS\\fR]";
  for (const OptionDoc& o : doc.options) {
    if (!o.positional) continue;
    const std::string name =
        "\\fI" + roff_escape(o.names.front()) + "\\fR" + (o.repeatable ? " ..." : "");
    out << (o.required ? " " + name : " [" + name + "]");
  }
  out << "\n";
}

void write_options(const CommandDoc& doc, std::ostringstream& out) {
  const bool any_positional =
      std::any_of(doc.options.begin(), doc.options.end(), [](auto& o) { return o.positional; });
  if (any_positional) out << ".SH ARGUMENTS\n";
  bool options_started = false;
  for (const OptionDoc& o : doc.options) {
    if (!o.positional && !options_started) {
      out << ".SH OPTIONS\n";
      options_started = true;
    }
    out << ".TP\n" << option_tag(o) << "\n" << roff_escape(o.description) << "\n";
  }
  if (!doc.footer.empty()) write_section_body({"", doc.footer}, out);
}

}  // namespace

std::string man_page_name(const CommandDoc& doc) {
  return doc.subcommand.empty() ? "stampede" : "stampede-" + doc.subcommand;
}

std::string roff_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

std::string write_man_page(const CommandDoc& doc, const ManPageText& text) {
  const std::string name = man_page_name(doc);
  std::ostringstream out;
  out << ".\\\" Written by the build (apps/stampede_manual.cc) from the options of `"
      << command_name(doc) << " --help` and docs/man/" << name << ".txt: edit those.\n";
  out << ".TH " << roff_escape(upper(name)) << " 1 \"\" \"stampede " << roff_escape(text.version)
      << "\" \"User Commands\"\n";
  out << ".SH NAME\n" << roff_escape(name) << " \\- " << roff_escape(command_summary(doc)) << "\n";
  write_synopsis(doc, out);
  const std::vector<ProseSection> prose = split_prose(text.prose);
  const auto description =
      std::find_if(prose.begin(), prose.end(), [](auto& s) { return s.heading == "DESCRIPTION"; });
  out << ".SH DESCRIPTION\n";
  if (description != prose.end()) {
    write_section_body(description->lines, out);
  } else {
    out << roff_escape(command_summary(doc)) << "\n";
  }
  write_options(doc, out);
  for (const ProseSection& section : prose) {
    if (section.heading == "DESCRIPTION" || section.heading == "SEE ALSO") continue;
    out << ".SH " << section.heading << "\n";
    write_section_body(section.lines, out);
  }
  std::string see_also;
  for (const std::string& other : text.see_also) {
    if (other == name) continue;
    see_also += (see_also.empty() ? "" : ",\n") + ("\\fB" + roff_escape(other) + "\\fR(1)");
  }
  if (!see_also.empty()) out << ".SH SEE ALSO\n" << see_also << "\n";
  return out.str();
}

}  // namespace stampede
