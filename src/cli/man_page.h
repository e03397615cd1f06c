// A subcommand's man page (roff with the man(7) macros) from its CommandDoc (cli/command_doc.h)
// and a hand-written prose file (docs/man/<page>.txt): the options section is the --help of the
// same App, so the page cannot drift from it; the prose adds what --help cannot say.
//
// The prose file's format: a line of capitals at the start of a line ("DESCRIPTION",
// "EXIT STATUS") opens a section; lines of text make a paragraph, a blank line ends it; lines
// indented by two spaces or more are printed as they are (commands, output). DESCRIPTION goes
// after the synopsis, every other section after the options, in the file's order; SEE ALSO is
// written from the other pages' names (one in the file is left out). Without a DESCRIPTION, the
// App's title is the description. Pure: no I/O.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "cli/command_doc.h"

namespace stampede {

// "stampede-serve" for `stampede serve`, "stampede" for the generator: the page's name, its
// file's (<name>.1) and its prose file's (<name>.txt).
std::string man_page_name(const CommandDoc& doc);

struct ManPageText {
  std::string_view prose;                 // the prose file's text ("" when there is none)
  std::string_view version;               // stampede's, for the page's footer
  std::span<const std::string> see_also;  // the other pages' names, for SEE ALSO
};

std::string write_man_page(const CommandDoc& doc, const ManPageText& text);

// `text` as roff text: backslashes, hyphens and a leading '.' or '\'' escaped.
std::string roff_escape(std::string_view text);

}  // namespace stampede
