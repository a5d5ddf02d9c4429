#!/usr/bin/env python3
"""Copies HIP's headers into a build folder and adapts the NVIDIA platform's
wrappers (hip/nvidia_detail) to the CUDA 13 runtime, so ppkit's HIP variants
can be compiled by nvcc and run on NVIDIA GPUs (docs/targets.md, "HIP on
NVIDIA").

    scripts/hip-nvidia-headers.py SOURCE_INCLUDE_DIR OUTPUT_INCLUDE_DIR

SOURCE_INCLUDE_DIR holds hip/ (Debian 12's libamdhip64-dev: /usr/include).
The HIP 5.x wrappers call CUDA runtime and driver functions whose signatures
changed or which were removed in CUDA 12/13 (texture references, multi-device
cooperative launches, cudaDeviceProp clock fields, cudaMemLocation arguments,
graph edge data). Each wrapper is rewritten to the CUDA 13 call with the same
meaning where one exists; wrappers of removed features return
hipErrorNotSupported. The headers are copied unchanged otherwise, and a
rewrite that no longer matches its text is an error, so a different HIP
release is reported instead of half-adapted.
"""
import pathlib
import re
import shutil
import sys

API = "hip/nvidia_detail/nvidia_hip_runtime_api.h"

# cudaDeviceProp fields removed in CUDA 13 -> the device attribute that holds
# the same value.
REMOVED_PROP_FIELDS = {
    "clockRate": "cudaDevAttrClockRate",
    "memoryClockRate": "cudaDevAttrMemoryClockRate",
    "computeMode": "cudaDevAttrComputeMode",
    "kernelExecTimeoutEnabled": "cudaDevAttrKernelExecTimeout",
    "cooperativeMultiDeviceLaunch": None,  # the feature is gone: 0
}

# (pattern, replacement, expected number of matches) applied to the API header.
CALL_REWRITES = [
    # Unified-memory hints take a cudaMemLocation since CUDA 12.2 (13: only form).
    (r"cudaMemAdvise\(dev_ptr, count,\s*hipMemoryAdviseTocudaMemoryAdvise\(advice\), device\)",
     "cudaMemAdvise(dev_ptr, count, hipMemoryAdviseTocudaMemoryAdvise(advice), "
     "ppkit_cuda13_location(device))", 1),
    (r"cudaMemPrefetchAsync\(dev_ptr, count, device, stream\)",
     "cudaMemPrefetchAsync(dev_ptr, count, ppkit_cuda13_location(device), 0, stream)", 1),
    # Graph dependencies carry optional edge data since CUDA 12.3 (13: only form).
    (r"cudaGraphAddDependencies\(graph, from, to, numDependencies\)",
     "cudaGraphAddDependencies(graph, from, to, nullptr, numDependencies)", 1),
    (r"cudaGraphRemoveDependencies\(graph, from, to, numDependencies\)",
     "cudaGraphRemoveDependencies(graph, from, to, nullptr, numDependencies)", 1),
    (r"cudaGraphGetEdges\(graph, from, to, numEdges\)",
     "cudaGraphGetEdges(graph, from, to, nullptr, numEdges)", 1),
    (r"cudaGraphNodeGetDependencies\(node, pDependencies, pNumDependencies\)",
     "cudaGraphNodeGetDependencies(node, pDependencies, nullptr, pNumDependencies)", 1),
    (r"cudaGraphNodeGetDependentNodes\(node, pDependentNodes, pNumDependentNodes\)",
     "cudaGraphNodeGetDependentNodes(node, pDependentNodes, nullptr, pNumDependentNodes)", 1),
    (r"cudaStreamGetCaptureInfo_v2\(\s*stream, captureStatus_out, id_out, graph_out, "
     r"dependencies_out, numDependencies_out\)",
     "cudaStreamGetCaptureInfo(stream, captureStatus_out, id_out, graph_out, "
     "dependencies_out, nullptr, numDependencies_out)", 1),
    (r"cudaStreamUpdateCaptureDependencies\(stream, dependencies,\s*numDependencies, flags\)",
     "cudaStreamUpdateCaptureDependencies(stream, dependencies, nullptr, numDependencies, flags)",
     1),
    # cuCtxCreate takes creation parameters since CUDA 12.5 (13: only form).
    (r"cuCtxCreate\(ctx, flags, device\)", "cuCtxCreate(ctx, nullptr, flags, device)", 1),
    # Gone with multi-device cooperative launches.
    (r"cdattr = cudaDevAttrCooperativeMultiDeviceLaunch;", "return hipErrorNotSupported;", 1),
]

# Wrappers of features CUDA 13 removed: their bodies become
# `return hipErrorNotSupported;` (texture references, multi-device launches).
REMOVED_CALLS = ["cudaBindTexture", "cudaBindTexture2D", "cudaBindTextureToArray",
                 "cudaUnbindTexture", "cudaGetTextureAlignmentOffset",
                 "cudaLaunchCooperativeKernelMultiDevice"]

HELPERS = """
// Added for CUDA 13 by ppkit's scripts/hip-nvidia-headers.py.
static inline cudaMemLocation ppkit_cuda13_location(int device) {
    cudaMemLocation location{};
    location.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
    location.id = device == cudaCpuDeviceId ? 0 : device;
    return location;
}
static inline int ppkit_cuda13_attribute(cudaDeviceAttr attribute, int device) {
    int value = 0;
    return cudaDeviceGetAttribute(&value, attribute, device) == cudaSuccess ? value : 0;
}
"""


def fail(message):
    sys.exit(f"hip-nvidia-headers: {message}")


def top_level_definitions(text):
    """Yields (start, body_open, end) of each brace-delimited top-level block
    that follows a ')' (a function definition), start being the beginning of
    its declaration (after the previous ';', '}' or preprocessor line)."""
    depth, i, n = 0, 0, len(text)
    last_boundary = 0
    scopes = []  # per open brace: a transparent (linkage/namespace) block?
    while i < n:
        c = text[i]
        if c == "/" and text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
            continue
        if c == "/" and text.startswith("/*", i):
            i = text.find("*/", i) + 2
            continue
        if c == "#" and depth == 0 and (i == 0 or text[i - 1] == "\n"):
            end = i
            while True:  # a preprocessor line, with continuations
                end = text.find("\n", end)
                if end < 0 or text[end - 1] != "\\":
                    break
                end += 1
            i = n if end < 0 else end
            last_boundary = i
            continue
        if c in "\"'":  # a string or character literal
            i = re.search(r"(?<!\\)" + c, text[i + 1:]).end() + i + 1
            continue
        if c == "{":
            before = text[last_boundary:i].rstrip()
            if depth == 0 and re.search(r'(extern "C"|namespace\s*\w*)$', before):
                scopes.append(True)  # a linkage or namespace block: look inside
                last_boundary = i + 1
            else:
                scopes.append(False)
                if depth == 0:
                    body_open = i
                    is_function = before.endswith(")") or before.endswith("const")
                depth += 1
        elif c == "}":
            if scopes.pop():
                last_boundary = i + 1
                i += 1
                continue
            depth -= 1
            if depth == 0:
                if is_function:
                    yield last_boundary, body_open, i + 1
                last_boundary = i + 1
        elif c == ";" and depth == 0:
            last_boundary = i + 1
        i += 1


def adapt_api_header(text):
    for pattern, replacement, expected in CALL_REWRITES:
        text, count = re.subn(pattern, replacement, text)
        if count != expected:
            fail(f"expected {expected} match(es) of {pattern!r} in {API}, found {count}; "
                 "this HIP release is not one the adaptation knows (HIP 5.2-5.x)")
    for field, attribute in REMOVED_PROP_FIELDS.items():
        # hipChooseDevice fills a cudaDeviceProp to match against: drop the field.
        text = re.sub(rf"\n[ \t]*cdprop\.{field} = prop->{field};", "", text)
        value = f"ppkit_cuda13_attribute({attribute}, device)" if attribute else "0"
        text = re.sub(rf"cdprop\.{field}\b", value, text)
    if re.search(r"cdprop\.(" + "|".join(REMOVED_PROP_FIELDS) + r")\b", text):
        fail("a removed cudaDeviceProp field is still read")
    # The removed features' wrappers.
    out, cursor, disabled = [], 0, 0
    for start, body_open, end in top_level_definitions(text):
        block = text[start:end]
        if any(re.search(rf"\b{call}\s*\(", block) for call in REMOVED_CALLS) or \
                re.search(r"\btexture\s*<", text[start:body_open]):
            out.append(text[cursor:body_open])
            out.append("{\n    return hipErrorNotSupported;\n}")
            cursor = end
            disabled += 1
    out.append(text[cursor:])
    text = "".join(out)
    # Texture-reference templates name texture<>, gone in CUDA 12: make the
    # parameter type an opaque declaration so the declarations still parse.
    text = re.sub(r"struct texture<T, dim, readMode>", "ppkit_removed_texture<T, dim, readMode>",
                  text)
    if disabled == 0:
        fail("no wrapper of a removed CUDA feature found")
    marker = "#include <cuda_runtime_api.h>"
    if marker not in text:
        fail(f"'{marker}' not found in {API}")
    text = text.replace(
        marker, marker + HELPERS +
        "template <class T, int dim, enum cudaTextureReadMode readMode>\n"
        "struct ppkit_removed_texture;  // texture references: removed in CUDA 12\n", 1)
    return text


def main():
    if len(sys.argv) != 3:
        fail("usage: hip-nvidia-headers.py SOURCE_INCLUDE_DIR OUTPUT_INCLUDE_DIR")
    source = pathlib.Path(sys.argv[1]) / "hip"
    output = pathlib.Path(sys.argv[2])
    if not (source / "nvidia_detail").is_dir():
        fail(f"{source}/nvidia_detail not found (Debian: apt-get install libamdhip64-dev)")
    target = output / "hip"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target)
    api = output / API
    api.write_text(adapt_api_header(api.read_text()))


if __name__ == "__main__":
    main()
