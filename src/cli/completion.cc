#include "cli/completion.h"

#include <algorithm>
#include <sstream>

namespace stampede {
namespace {

// The choices of a value named "queue|close|reset", or none.
std::vector<std::string> choices(const std::string& value) {
  if (value.find('|') == std::string::npos) return {};
  const bool words = std::all_of(value.begin(), value.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '|';
  });
  if (!words) return {};
  std::vector<std::string> out;
  std::istringstream in(value);
  for (std::string choice; std::getline(in, choice, '|');)
    out.push_back(choice);
  return out;
}

bool is_path(const std::string& value) {
  return value.find("PATH") != std::string::npos || value.find("FILE") != std::string::npos;
}

// `text` inside single quotes in a shell script.
std::string single_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return out + "'";
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words)
    out += (out.empty() ? "" : " ") + w;
  return out;
}

// A bash `case` branch for one subcommand: its options, those that take a value, their
// completions.
void write_bash_branch(const CommandDoc& doc, std::ostringstream& out) {
  std::vector<std::string> names;
  bool positional_files = false;
  out << "    " << (doc.subcommand.empty() ? "*" : doc.subcommand) << ")\n";
  out << "      case $prev in\n";
  for (const OptionDoc& o : doc.options) {
    if (o.positional) {
      positional_files = positional_files || is_path(o.value);
      continue;
    }
    names.insert(names.end(), o.names.begin(), o.names.end());
    if (o.value.empty()) continue;
    std::string pattern;
    for (const std::string& n : o.names)
      pattern += (pattern.empty() ? "" : "|") + n;
    const std::vector<std::string> words = choices(o.value);
    if (!words.empty()) {
      out << "        " << pattern << ") COMPREPLY=($(compgen -W " << single_quoted(joined(words))
          << " -- \"$cur\")); return 0 ;;\n";
    } else if (is_path(o.value)) {
      out << "        " << pattern << ") _stampede_files; return 0 ;;\n";
    } else {
      out << "        " << pattern << ") return 0 ;;\n";
    }
  }
  out << "      esac\n";
  out << "      options=" << single_quoted(joined(names)) << "\n";
  out << "      positional_files=" << (positional_files ? 1 : 0) << "\n      ;;\n";
}

// `text` up to its first "; " or ". " outside parentheses ("Header (repeatable; ...)" whole).
std::string first_clause(const std::string& text) {
  int depth = 0;
  for (std::size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')' && depth > 0) --depth;
    if (depth == 0 && (text[i] == ';' || text[i] == '.') && text[i + 1] == ' ') {
      return text.substr(0, i);
    }
  }
  return text;
}

// Where a text goes in the zsh script: an _arguments explanation ("--x[...]"), a message
// ("...:message:action"), or a _describe entry ("name:description").
enum class ZshField { Explanation, Message, Describe };

// The first clause of `text`, escaped for `field` (zshcompsys(1), _arguments: a ']' in an
// explanation and a ':' in a message are quoted with a backslash).
std::string zsh_text(const std::string& text, ZshField field) {
  std::string first = first_clause(text);
  if (first.size() > 90) first = first.substr(0, 87) + "...";
  std::string out;
  for (char c : first) {
    const bool quote = (field == ZshField::Explanation && (c == '[' || c == ']' || c == '\\')) ||
                       (field == ZshField::Message && (c == ':' || c == '\\'));
    if (quote) out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

std::string zsh_action(const OptionDoc& o) {
  const std::vector<std::string> words = choices(o.value);
  if (!words.empty()) return "(" + joined(words) + ")";
  return is_path(o.value) ? "_files" : " ";
}

std::string zsh_function(const CommandDoc& doc) {
  return "_stampede_" + (doc.subcommand.empty() ? std::string("generator") : doc.subcommand);
}

void write_zsh_function(const CommandDoc& doc, std::ostringstream& out) {
  out << zsh_function(doc) << "() {\n  _arguments -s -S";
  for (const OptionDoc& o : doc.options) {
    if (o.positional) {
      const std::string message = zsh_text(o.names.front(), ZshField::Message);
      out << " \\\n    "
          << single_quoted((o.repeatable ? "*:" : ":") + message + ":" + zsh_action(o));
      continue;
    }
    const std::string value =
        o.value.empty() ? "" : ":" + zsh_text(o.value, ZshField::Message) + ":" + zsh_action(o);
    for (const std::string& name : o.names) {
      const bool is_long = name.rfind("--", 0) == 0;
      const std::string suffix = o.value.empty() ? "" : (is_long ? "=" : "+");
      out << " \\\n    "
          << single_quoted((o.repeatable ? "*" : "") + name + suffix + "[" +
                           zsh_text(o.description, ZshField::Explanation) + "]" + value);
    }
  }
  out << "\n}\n\n";
}

}  // namespace

std::string write_bash_completion(std::span<const CommandDoc> docs) {
  std::vector<std::string> subcommands;
  for (const CommandDoc& doc : docs) {
    if (!doc.subcommand.empty()) subcommands.push_back(doc.subcommand);
  }
  std::string pattern = joined(subcommands);  // "serve|balance|...": a case pattern
  std::replace(pattern.begin(), pattern.end(), ' ', '|');
  std::ostringstream out;
  out << "# bash completion for stampede, written by the build (apps/stampede_manual.cc) from the\n"
         "# options of each subcommand's --help: edit those, not this file.\n\n"
         "_stampede_files() {\n"
         "  compopt -o filenames 2>/dev/null\n"
         "  COMPREPLY=($(compgen -f -- \"$cur\"))\n"
         "}\n\n"
         "_stampede() {\n"
         "  local cur=${COMP_WORDS[COMP_CWORD]} prev= sub= options= positional_files=0\n"
         "  (( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}\n"
         "  COMPREPLY=()\n";
  if (!subcommands.empty()) {
    out << "  if (( COMP_CWORD > 1 )); then\n"
           "    case ${COMP_WORDS[1]} in\n"
           "      "
        << pattern
        << ") sub=${COMP_WORDS[1]} ;;\n"
           "    esac\n"
           "  fi\n";
  }
  out << "  case $sub in\n";
  // The generator's branch is `*`: it goes last.
  for (const CommandDoc& doc : docs) {
    if (!doc.subcommand.empty()) write_bash_branch(doc, out);
  }
  for (const CommandDoc& doc : docs) {
    if (doc.subcommand.empty()) write_bash_branch(doc, out);
  }
  out << "  esac\n"
         "  if [[ $cur == -* ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n"
         "  elif [[ -z $sub ]] && (( COMP_CWORD == 1 )); then\n"
         "    COMPREPLY=($(compgen -W "
      << single_quoted(joined(subcommands))
      << " -- \"$cur\"))\n"
         "  elif (( positional_files )); then\n"
         "    _stampede_files\n"
         "  fi\n"
         "  return 0\n"
         "}\n\n"
         "complete -F _stampede stampede\n";
  return out.str();
}

std::string write_zsh_completion(std::span<const CommandDoc> docs) {
  std::ostringstream out;
  out << "#compdef stampede\n"
         "# zsh completion for stampede, written by the build (apps/stampede_manual.cc) from the\n"
         "# options of each subcommand's --help: edit those, not this file.\n\n";
  std::string pattern;
  std::string described;
  for (const CommandDoc& doc : docs) {
    write_zsh_function(doc, out);
    if (doc.subcommand.empty()) continue;
    pattern += (pattern.empty() ? "" : "|") + doc.subcommand;
    described += "\n    " + single_quoted(doc.subcommand + ":" +
                                          zsh_text(command_summary(doc), ZshField::Describe));
  }
  out << "_stampede() {\n"
         "  local -a subcommands\n"
         "  subcommands=("
      << described
      << "\n  )\n"
         "  case ${words[2]} in\n"
         "    ("
      << pattern
      << ")\n"
         "      if (( CURRENT > 2 )); then\n"
         "        shift words\n"
         "        (( CURRENT-- ))\n"
         "        _stampede_${words[1]}\n"
         "        return\n"
         "      fi\n"
         "      ;;\n"
         "  esac\n"
         "  if (( CURRENT == 2 )) && [[ ${words[CURRENT]} != -* ]]; then\n"
         "    _describe -t subcommands 'stampede subcommand' subcommands\n"
         "  fi\n"
         "  _stampede_generator\n"
         "}\n\n"
         "_stampede \"$@\"\n";
  return out.str();
}

}  // namespace stampede
