// DLPack tensors as kernel arguments (needs <dlpack/dlpack.h>, Debian's libdlpack-dev).
//
//   copy.launch({from_dlpack(*a), from_dlpack(*b)});   // dtype, shape and layout checked
#pragma once

#include <dlpack/dlpack.h>

#include <source_location>
#include <string>

#include "wave/compile.hpp"

namespace wave {

// Throws wave::Error for a tensor off the GPU or of an element type wave-cpp has no name for.
inline TensorArg from_dlpack(const DLTensor& t, std::source_location where = std::source_location::current()) {
  auto fail = [&](const std::string& message) { throw Error("", "from_dlpack", where, message); };
  if (t.device.device_type != kDLCUDA && t.device.device_type != kDLCUDAManaged)
    fail(expected_found("a CUDA device tensor", "device type " + std::to_string(t.device.device_type)));
  if (t.dtype.lanes != 1) fail(expected_found("one lane per element", std::to_string(t.dtype.lanes) + " lanes"));
  TensorArg arg;
  const int bits = t.dtype.bits;
  switch (t.dtype.code) {
    case kDLFloat:
      if (bits == 16) arg.dtype = DataType::f16;
      else if (bits == 32) arg.dtype = DataType::f32;
      else if (bits == 64) arg.dtype = DataType::f64;
      else fail(expected_found("a float of 16, 32 or 64 bits", std::to_string(bits) + " bits"));
      break;
    case kDLBfloat:
      if (bits != 16) fail(expected_found("bfloat of 16 bits", std::to_string(bits) + " bits"));
      arg.dtype = DataType::bf16;
      break;
    case kDLInt:
    case kDLUInt:
      if (bits == 1) arg.dtype = DataType::i1;
      else if (bits == 8) arg.dtype = DataType::i8;
      else if (bits == 32) arg.dtype = DataType::i32;
      else if (bits == 64) arg.dtype = DataType::i64;
      else fail(expected_found("an integer of 1, 8, 32 or 64 bits", std::to_string(bits) + " bits"));
      break;
    default:
      fail(expected_found("a float, bfloat or integer dtype", "DLPack type code " + std::to_string(t.dtype.code)));
  }
  arg.data = static_cast<const char*>(t.data) + t.byte_offset;
  arg.shape.assign(t.shape, t.shape + t.ndim);
  if (t.strides) arg.strides.assign(t.strides, t.strides + t.ndim);
  return arg;
}

}  // namespace wave
