// The translation unit that builds the precompiled header (cmake/pch.cmake); nothing else.
