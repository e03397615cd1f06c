#include "cli/command_doc.h"

#include <CLI/CLI.hpp>

namespace stampede {

CommandDoc document_command_line(const CLI::App& app) {
  CommandDoc doc;
  doc.title = app.get_description();
  doc.footer = app.get_footer();
  // Positionals first, as --help lists them in a section of their own.
  for (const bool positionals : {true, false}) {
    for (const CLI::Option* opt : app.get_options()) {
      if (opt->get_group().empty()) continue;  // hidden from --help
      const bool positional = !opt->nonpositional();
      if (positional != positionals) continue;
      OptionDoc o;
      o.positional = positional;
      if (positional) {
        o.names.push_back(opt->get_name(true));
      } else {
        for (const std::string& s : opt->get_snames())
          o.names.push_back("-" + s);
        for (const std::string& l : opt->get_lnames())
          o.names.push_back("--" + l);
      }
      if (opt->get_type_size() != 0) o.value = opt->get_type_name();
      o.description = opt->get_description();
      o.repeatable = opt->get_expected_max() >= CLI::detail::expected_max_vector_size ||
                     opt->get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll;
      o.required = opt->get_required();
      doc.options.push_back(std::move(o));
    }
  }
  return doc;
}

std::string command_name(const CommandDoc& doc) {
  return doc.subcommand.empty() ? "stampede" : "stampede " + doc.subcommand;
}

std::string command_summary(const CommandDoc& doc) {
  const std::size_t colon = doc.title.find(": ");
  return colon == std::string::npos ? doc.title : doc.title.substr(colon + 2);
}

}  // namespace stampede
