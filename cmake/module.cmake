# Module include roots: each module's headers are visible only to the targets that link it.
#
# stampede_module(TARGET DIR [OWN_HEADERS]) gives TARGET a private include root in the build tree,
# include/TARGET, holding the symlink DIR -> src/DIR, and exports it PUBLIC. So `#include
# "net/socket.h"` resolves for stampede_net and whatever links it, and is "No such file" for a
# module below it (http including loadgen/..., net including server/...): a wrong-way include fails
# to build. tests/unit/layering checks it.
#
# OWN_HEADERS: DIR holds a module of its own (loadgen/report): the root then holds a directory DIR
# with one symlink per header directly in src/DIR instead of one link to the whole directory, so
# the nested module stays out of reach. A header added later is linked at the next build (the glob
# is CONFIGURE_DEPENDS).
function(stampede_module target dir)
  cmake_parse_arguments(PARSE_ARGV 2 arg "OWN_HEADERS" "" "")
  set(root ${PROJECT_BINARY_DIR}/include/${target})
  set(source ${PROJECT_SOURCE_DIR}/src/${dir})
  if(arg_OWN_HEADERS)
    file(GLOB headers CONFIGURE_DEPENDS RELATIVE ${source} ${source}/*.h)
    if(IS_SYMLINK ${root}/${dir})
      file(REMOVE ${root}/${dir})
    endif()
    file(REMOVE_RECURSE ${root}/${dir})  # a real directory of links: links to removed headers go
    file(MAKE_DIRECTORY ${root}/${dir})
    foreach(header ${headers})
      file(CREATE_LINK ${source}/${header} ${root}/${dir}/${header} SYMBOLIC)
    endforeach()
  else()
    get_filename_component(parent ${root}/${dir} DIRECTORY)
    file(MAKE_DIRECTORY ${parent})
    file(CREATE_LINK ${source} ${root}/${dir} SYMBOLIC)
  endif()
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${root}>)
endfunction()
