// encode_tensor_map: a TMA tensor map through the driver's cuTensorMapEncodeTiled.
#include "runtime/CudaDriver.h"

#include "wave/error.hpp"
#include "wave/runtime.hpp"

namespace wave::runtime {
namespace {

// The driver's CUtensorMapDataType: TMA moves bytes, so only the width matters for the
// 8-bit types; 16- and 32-bit floats are named for their out-of-bounds fill.
int tensorMapDataType(DataType dtype) {
  switch (dtype) {
    case DataType::f16: return 6;   // FLOAT16
    case DataType::bf16: return 9;  // BFLOAT16
    case DataType::f32: return 7;   // FLOAT32
    case DataType::f64: return 8;   // FLOAT64
    case DataType::i32: return 3;   // INT32
    case DataType::i64: return 5;   // INT64
    case DataType::f8e4m3:
    case DataType::f8e5m2:
    case DataType::f8e4m3fnuz:
    case DataType::f8e5m2fnuz:
    case DataType::i8:
    case DataType::i1: return 0;  // UINT8
  }
  return 0;
}

int swizzleKind(unsigned bytes) {
  switch (bytes) {
    case 32: return 1;
    case 64: return 2;
    case 128: return 3;
    default: return 0;
  }
}

}  // namespace

TensorMap encode_tensor_map(const void* address, DataType dtype, const std::vector<std::int64_t>& sizes,
                            const std::vector<unsigned>& box, unsigned swizzle, std::source_location where) {
  using namespace jit::cuda;
  auto fail = [&](const std::string& message) { throw Error("", "runtime", where, message); };
  const std::size_t rank = sizes.size();
  if (rank == 0 || rank > 5 || box.size() != rank)
    fail(expected_found("a tensor map of 1 to 5 dims with a box extent per dim",
                        std::to_string(rank) + " dims and " + std::to_string(box.size()) + " box extents"));
  const Driver& d = Driver::get();
  if (!d.available()) fail("expected a GPU, but found " + d.unavailable_reason());
  if (!d.cuTensorMapEncodeTiled)
    fail(expected_found("a CUDA 12 driver (cuTensorMapEncodeTiled) for the kernel's TMA copies",
                        "an older driver"));
  const std::uint64_t bytes = static_cast<std::uint64_t>(bit_width(dtype)) / 8;
  // The driver orders dims innermost first; strides (bytes) are given for all but the innermost.
  std::vector<std::uint64_t> dims(rank), strides(rank > 1 ? rank - 1 : 1);
  std::vector<std::uint32_t> boxDims(rank), elementStrides(rank, 1);
  std::uint64_t stride = bytes;
  for (std::size_t i = 0; i < rank; ++i) {
    const std::size_t d = rank - 1 - i;
    dims[i] = static_cast<std::uint64_t>(sizes[d]);
    boxDims[i] = box[d];
    if (i > 0) strides[i - 1] = stride;
    stride *= dims[i];
  }
  TensorMap map;
  if (CUresult r = d.cuTensorMapEncodeTiled(&map, tensorMapDataType(dtype), static_cast<std::uint32_t>(rank),
                                            const_cast<void*>(address), dims.data(), strides.data(), boxDims.data(),
                                            elementStrides.data(), /*interleave=*/0, swizzleKind(swizzle),
                                            /*L2 promotion 128B=*/2, /*OOB fill: zeros=*/0);
      r != CUDA_SUCCESS) {
    std::string shape;
    for (std::size_t i = 0; i < rank; ++i) shape += (i ? "x" : "") + std::to_string(sizes[i]);
    fail("encoding a TMA tensor map of a " + shape + " " + std::string(name(dtype)) +
         " tensor: " + d.describe("cuTensorMapEncodeTiled", r));
  }
  return map;
}

}  // namespace wave::runtime
