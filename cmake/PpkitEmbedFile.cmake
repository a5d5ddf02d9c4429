# Script mode: writes IN as a raw string literal into OUT (see PpkitEmbedOpenCL).
file(READ ${IN} content)
file(WRITE ${OUT} "// Generated from ${IN}; edit the .cl file.\n#pragma once\nnamespace ppkit::opencl::sources {\ninline constexpr const char* ${STEM} = R\"ppkitcl(${content})ppkitcl\";\n}\n")
