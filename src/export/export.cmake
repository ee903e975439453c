# The shared encoders (src/export/<encoder>/) and each format's mapping to
# them (src/<format>/export.cmake lists the files beside its reader).
set(TK_EXPORT_SOURCES
  src/export/perfetto/pb.c src/export/perfetto/perfetto.c src/export/perfetto/intern.c
  src/export/perfetto/tracks.c)
foreach(part src/export/parquet/parquet.cmake src/export/html/html.cmake
             src/xray/export.cmake src/casemate/export.cmake src/ucir/export.cmake
             src/cacheray/export.cmake)
  if(EXISTS ${PROJECT_SOURCE_DIR}/${part})
    include(${PROJECT_SOURCE_DIR}/${part})
  endif()
endforeach()
