# Writes and installs tracekit.pc; run by `cmake --install` (the install(CODE)
# in CMakeLists.txt sets the TK_PC_* variables). The paths are absolute and
# computed now, from the prefix being installed into: a relative
# ${pcfiledir} path breaks when GNUInstallDirs picks a multiarch libdir
# (lib/x86_64-linux-gnu is one level deeper than lib).

# A GNUInstallDirs directory as pkg-config wants it: under ${prefix} when
# relative, as given when absolute.
function(tk_pc_dir out dir)
  if(IS_ABSOLUTE "${dir}")
    set(${out} "${dir}" PARENT_SCOPE)
  else()
    set(${out} "\${prefix}/${dir}" PARENT_SCOPE)
  endif()
endfunction()

set(TK_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
tk_pc_dir(TK_PC_LIBDIR_VAR "${TK_PC_LIBDIR}")
tk_pc_dir(TK_PC_INCLUDEDIR_VAR "${TK_PC_INCLUDEDIR}")
configure_file("${TK_PC_TEMPLATE}" "${TK_PC_OUT}" @ONLY)

if(IS_ABSOLUTE "${TK_PC_LIBDIR}")
  set(_tk_pc_libdir "${TK_PC_LIBDIR}")
else()
  set(_tk_pc_libdir "${CMAKE_INSTALL_PREFIX}/${TK_PC_LIBDIR}")
endif()
# file(INSTALL) adds $DESTDIR and lists the file like the other installs.
file(INSTALL DESTINATION "${_tk_pc_libdir}/pkgconfig" TYPE FILE FILES "${TK_PC_OUT}")

# The run-time hint: a program linked against libtracekit.so finds it
# only where the dynamic loader looks.
if(NOT CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  message(STATUS "tracekit: programs linked with `pkg-config --libs tracekit` find "
                 "libtracekit.so at run time through -Wl,-rpath,${_tk_pc_libdir}, "
                 "LD_LIBRARY_PATH or ldconfig (docs/api.md)")
endif()
