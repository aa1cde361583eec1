// Kernels (compute pipelines with specialization constants and push constants) and dispatch:
// dispatches are recorded into one command buffer, with a compute-to-compute barrier between
// them, and submitted on finish(), a transfer, a timed dispatch, or when the batch is full.
#include <chrono>
#include <limits>

#include "backends/vulkan/vk_device_impl.h"

namespace gauntlet::backends::vulkan {

namespace {

void compute_barrier(const vk::raii::CommandBuffer& cmd) {
  vk::MemoryBarrier barrier(vk::AccessFlagBits::eShaderWrite,
                            vk::AccessFlagBits::eShaderRead | vk::AccessFlagBits::eShaderWrite);
  cmd.pipelineBarrier(vk::PipelineStageFlagBits::eComputeShader,
                      vk::PipelineStageFlagBits::eComputeShader, {}, barrier, {}, {});
}

// At the end of a batch: shader writes become visible to transfers and to the host.
void end_of_batch_barrier(const vk::raii::CommandBuffer& cmd) {
  vk::MemoryBarrier barrier(vk::AccessFlagBits::eShaderWrite,
                            vk::AccessFlagBits::eTransferRead | vk::AccessFlagBits::eHostRead);
  cmd.pipelineBarrier(vk::PipelineStageFlagBits::eComputeShader,
                      vk::PipelineStageFlagBits::eTransfer | vk::PipelineStageFlagBits::eHost, {},
                      barrier, {}, {});
}

}  // namespace

Result<std::unique_ptr<Kernel>> VulkanDevice::do_build(const KernelSource& source) {
  const auto& limits = core_->limits;
  const std::string kernel = "kernel '" + source.name + "'";
  if (source.spirv.empty()) {
    // The one place a kernel without SPIR-V is refused: a build without glslc embeds none.
    return error(core::ErrorKind::unsupported,
                 "kernel " + source.name +
                     " has no SPIR-V in this build (its GLSL was not compiled: built without "
                     "glslc)");
  }
  if (source.spirv.size() < 5 || source.spirv[0] != 0x07230203) {
    return error(core::ErrorKind::invalid_argument,
                 kernel + " SPIR-V is not a SPIR-V module (no magic number)");
  }
  uint64_t invocations = 1;
  for (int d = 0; d < 3; ++d) {
    const uint32_t size = source.workgroup[d];
    invocations *= size;
    if (size == 0 || size > limits.maxComputeWorkGroupSize[d]) {
      return error(core::ErrorKind::invalid_argument,
                   kernel + " workgroup size " + std::to_string(size) + " in dimension " +
                       std::to_string(d) + " is outside 1..maxComputeWorkGroupSize[" +
                       std::to_string(d) + "] (" +
                       std::to_string(limits.maxComputeWorkGroupSize[d]) + ")");
    }
  }
  if (invocations > limits.maxComputeWorkGroupInvocations) {
    return error(core::ErrorKind::invalid_argument,
                 kernel + " workgroup of " + std::to_string(invocations) +
                     " invocations exceeds maxComputeWorkGroupInvocations (" +
                     std::to_string(limits.maxComputeWorkGroupInvocations) + ")");
  }
  if (source.params_bytes % 4 != 0 || source.params_bytes > limits.maxPushConstantsSize) {
    return error(core::ErrorKind::invalid_argument,
                 kernel + " parameter block of " + std::to_string(source.params_bytes) +
                     " bytes must be a multiple of 4 and at most maxPushConstantsSize (" +
                     std::to_string(limits.maxPushConstantsSize) + ")");
  }
  if (source.buffer_count > limits.maxPerStageDescriptorStorageBuffers ||
      source.buffer_count > kPoolDescriptors) {
    return error(core::ErrorKind::invalid_argument,
                 kernel + " takes " + std::to_string(source.buffer_count) +
                     " buffers; maxPerStageDescriptorStorageBuffers is " +
                     std::to_string(limits.maxPerStageDescriptorStorageBuffers));
  }
  if (source.texel_bindings() > limits.maxPerStageDescriptorSampledImages ||
      source.texel_bindings() > kPoolDescriptors) {
    return error(core::ErrorKind::invalid_argument,
                 kernel + " reads " + std::to_string(source.texel_bindings()) +
                     " texel buffers; maxPerStageDescriptorSampledImages is " +
                     std::to_string(limits.maxPerStageDescriptorSampledImages));
  }
  for (uint32_t buffer : source.texel_views) {
    if (buffer >= source.buffer_count) {
      return error(core::ErrorKind::invalid_argument,
                   kernel + " reads buffer " + std::to_string(buffer) + " as texels but takes " +
                       std::to_string(source.buffer_count) + " buffers");
    }
  }

  std::vector<uint32_t> spec_data(source.workgroup.begin(), source.workgroup.end());
  std::map<uint32_t, uint32_t> spec_values{{0, spec_data[0]}, {1, spec_data[1]}, {2, spec_data[2]}};
  for (size_t i = 0; i < source.constants.size(); ++i) {
    const auto& c = source.constants[i];
    if (c.value < std::numeric_limits<int32_t>::min() ||
        c.value > std::numeric_limits<int32_t>::max()) {
      return error(core::ErrorKind::invalid_argument,
                   kernel + " constant " + c.name + " = " + std::to_string(c.value) +
                       " does not fit the 32-bit specialization constant " + std::to_string(3 + i));
    }
    const auto word = static_cast<uint32_t>(static_cast<int32_t>(c.value));
    spec_data.push_back(word);
    spec_values[static_cast<uint32_t>(3 + i)] = word;
  }
  // Drivers do not all refuse a shared array larger than the limit: llvmpipe (Mesa 22.3) creates
  // the pipeline, runs 41216 bytes correctly, and past 64 KiB silently computes wrong results.
  // So the limit is enforced here, where the reason can still be stated.
  if (auto shared = workgroup_memory_bytes(source.spirv, spec_values);
      shared && *shared > limits.maxComputeSharedMemorySize) {
    return error(core::ErrorKind::unsupported,
                 kernel + " needs " + std::to_string(*shared) +
                     " bytes of shared memory; maxComputeSharedMemorySize is " +
                     std::to_string(limits.maxComputeSharedMemorySize));
  }

  return guarded(name(), [&]() -> Result<std::unique_ptr<Kernel>> {
    auto res = std::make_shared<PipelineResource>();
    res->core = core_;
    res->module = vk::raii::ShaderModule(
        core_->device,
        vk::ShaderModuleCreateInfo({}, source.spirv.size_bytes(), source.spirv.data()));
    std::vector<vk::DescriptorSetLayoutBinding> bindings;
    for (uint32_t b = 0; b < source.buffer_count; ++b) {
      bindings.emplace_back(b, vk::DescriptorType::eStorageBuffer, 1,
                            vk::ShaderStageFlagBits::eCompute);
    }
    for (uint32_t i = 0; i < source.texel_bindings(); ++i) {
      bindings.emplace_back(source.buffer_count + i, vk::DescriptorType::eUniformTexelBuffer, 1,
                            vk::ShaderStageFlagBits::eCompute);
    }
    res->set_layout = vk::raii::DescriptorSetLayout(
        core_->device, vk::DescriptorSetLayoutCreateInfo({}, bindings));
    vk::PushConstantRange push(vk::ShaderStageFlagBits::eCompute, 0, source.params_bytes);
    vk::PipelineLayoutCreateInfo layout_info;
    vk::DescriptorSetLayout set_layout = *res->set_layout;
    if (source.buffer_count > 0) layout_info.setSetLayouts(set_layout);
    if (source.params_bytes > 0) layout_info.setPushConstantRanges(push);
    res->layout = vk::raii::PipelineLayout(core_->device, layout_info);

    std::vector<vk::SpecializationMapEntry> entries;
    for (uint32_t i = 0; i < spec_data.size(); ++i) {
      entries.emplace_back(i, i * 4, 4);
    }
    vk::SpecializationInfo spec(entries, vk::ArrayProxyNoTemporaries<const uint32_t>(spec_data));
    vk::PipelineShaderStageCreateInfo stage({}, vk::ShaderStageFlagBits::eCompute, *res->module,
                                            "main", &spec);
    res->pipeline = vk::raii::Pipeline(core_->device, nullptr,
                                       vk::ComputePipelineCreateInfo({}, stage, *res->layout));
    return std::unique_ptr<Kernel>(std::make_unique<VulkanKernel>(uid(), source, std::move(res)));
  });
}

void VulkanDevice::begin_batch_if_idle() {
  if (recording_) return;
  cmd_.begin(vk::CommandBufferBeginInfo(vk::CommandBufferUsageFlagBits::eOneTimeSubmit));
  recording_ = true;
}

void VulkanDevice::flush() {
  if (!recording_) return;
  recording_ = false;
  batch_dispatches_ = 0;
  batch_descriptors_ = 0;
  auto release = std::move(keep_alive_);  // freed once the work is done, even on failure
  keep_alive_.clear();
  end_of_batch_barrier(cmd_);
  cmd_.end();
  submit_and_wait();
  descriptor_pool_.reset();
}

void VulkanDevice::record_dispatch(const VulkanKernel& kernel, const DispatchArgs& args) {
  const auto& src = kernel.source();
  const auto& res = *kernel.res();
  if (batch_dispatches_ >= kBatchDispatches ||
      batch_descriptors_ + src.buffer_count + src.texel_bindings() > kPoolDescriptors) {
    flush();
  }
  begin_batch_if_idle();
  if (batch_dispatches_ > 0) compute_barrier(cmd_);
  cmd_.bindPipeline(vk::PipelineBindPoint::eCompute, *res.pipeline);
  if (src.buffer_count > 0) {
    vk::DescriptorSetLayout layout = *res.set_layout;
    vk::DescriptorSetAllocateInfo alloc(*descriptor_pool_, layout);
    vk::DescriptorSet set;
    const vk::Device device = *core_->device;
    vk::Result result = device.allocateDescriptorSets(&alloc, &set, *core_->device.getDispatcher());
    if (result != vk::Result::eSuccess) {
      throw Failure(result_error("vkAllocateDescriptorSets", result, name()));
    }
    std::vector<vk::DescriptorBufferInfo> infos;
    infos.reserve(args.buffers.size());
    for (const Buffer* b : args.buffers) {
      infos.emplace_back(*static_cast<const VulkanBuffer*>(b)->res()->buffer, 0, VK_WHOLE_SIZE);
    }
    std::vector<vk::WriteDescriptorSet> writes;
    for (uint32_t i = 0; i < infos.size(); ++i) {
      writes.emplace_back(set, i, 0, 1, vk::DescriptorType::eStorageBuffer, nullptr, &infos[i]);
    }
    std::vector<vk::BufferView> views;
    views.reserve(src.texel_bindings());
    auto add_view = [&](uint32_t buffer, vk::Format format, uint64_t texel_bytes) {
      const uint64_t texels = args.buffers[buffer]->size() / texel_bytes;
      if (texels > core_->limits.maxTexelBufferElements) {
        fail(core::ErrorKind::invalid_argument,
             src.name + " reads buffer " + std::to_string(buffer) + " as " +
                 std::to_string(texels) + " texels; maxTexelBufferElements is " +
                 std::to_string(core_->limits.maxTexelBufferElements),
             name());
      }
      auto view = std::make_shared<vk::raii::BufferView>(
          core_->device,
          vk::BufferViewCreateInfo({}, infos[buffer].buffer, format, 0, VK_WHOLE_SIZE));
      views.push_back(**view);
      keep_alive_.push_back(view);
    };
    // R32_UINT words over the whole buffer (its kernel reads 32-bit words), then the same buffers
    // as 16-byte vectors where the kernel asks for them.
    for (uint32_t buffer : src.texel_views) add_view(buffer, vk::Format::eR32Uint, 4);
    if (src.texel_vectors) {
      for (uint32_t buffer : src.texel_views) add_view(buffer, vk::Format::eR32G32B32A32Uint, 16);
    }
    for (uint32_t i = 0; i < views.size(); ++i) {
      writes.emplace_back(set, src.buffer_count + i, 0, 1, vk::DescriptorType::eUniformTexelBuffer,
                          nullptr, nullptr, &views[i]);
    }
    core_->device.updateDescriptorSets(writes, {});
    cmd_.bindDescriptorSets(vk::PipelineBindPoint::eCompute, *res.layout, 0, set, {});
  }
  if (src.params_bytes > 0) {
    (*cmd_).pushConstants(*res.layout, vk::ShaderStageFlagBits::eCompute, 0,
                          static_cast<uint32_t>(args.params.size()), args.params.data(),
                          *cmd_.getDispatcher());
  }
  cmd_.dispatch(args.groups[0], args.groups[1], args.groups[2]);
  keep_alive_.push_back(kernel.res());
  for (const Buffer* b : args.buffers) {
    keep_alive_.push_back(static_cast<const VulkanBuffer*>(b)->res());
  }
  ++batch_dispatches_;
  batch_descriptors_ += src.buffer_count + src.texel_bindings();
}

double VulkanDevice::timed_dispatch(const VulkanKernel& kernel, const DispatchArgs& args) {
  flush();  // the timing covers this dispatch alone
  if (!static_cast<VkQueryPool>(*timestamps_)) {
    auto start = std::chrono::steady_clock::now();
    record_dispatch(kernel, args);
    flush();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  begin_batch_if_idle();
  cmd_.resetQueryPool(*timestamps_, 0, 2);
  cmd_.writeTimestamp(vk::PipelineStageFlagBits::eTopOfPipe, *timestamps_, 0);
  record_dispatch(kernel, args);
  cmd_.writeTimestamp(vk::PipelineStageFlagBits::eBottomOfPipe, *timestamps_, 1);
  flush();
  auto [result, ticks] = timestamps_.getResults<uint64_t>(
      0, 2, 2 * sizeof(uint64_t), sizeof(uint64_t),
      vk::QueryResultFlagBits::e64 | vk::QueryResultFlagBits::eWait);
  if (result != vk::Result::eSuccess) {
    throw Failure(result_error("vkGetQueryPoolResults", result, name()));
  }
  const uint64_t mask = core_->timestamp_bits >= 64 ? ~0ull : ((1ull << core_->timestamp_bits) - 1);
  const uint64_t delta = (ticks[1] - ticks[0]) & mask;
  return static_cast<double>(delta) * core_->limits.timestampPeriod * 1e-9;
}

Status VulkanDevice::do_dispatch(const Kernel& kernel, const DispatchArgs& args) {
  if (args.dynamic_local_bytes != 0) {
    return error(core::ErrorKind::invalid_argument,
                 "kernel '" + kernel.source().name + "' was given " +
                     std::to_string(args.dynamic_local_bytes) +
                     " bytes of dynamic local memory; Vulkan shared memory is sized by a "
                     "specialization constant instead");
  }
  for (int d = 0; d < 3; ++d) {
    if (args.groups[d] > core_->limits.maxComputeWorkGroupCount[d]) {
      return error(core::ErrorKind::invalid_argument,
                   "dispatch of " + std::to_string(args.groups[d]) + " workgroups in dimension " +
                       std::to_string(d) + " exceeds maxComputeWorkGroupCount[" +
                       std::to_string(d) + "] (" +
                       std::to_string(core_->limits.maxComputeWorkGroupCount[d]) + ")");
    }
  }
  return guarded(name(), [&]() -> Status {
    const auto& vk_kernel = static_cast<const VulkanKernel&>(kernel);
    if (args.device_seconds != nullptr) {
      *args.device_seconds = timed_dispatch(vk_kernel, args);
    } else {
      record_dispatch(vk_kernel, args);
    }
    return Status::ok();
  });
}

}  // namespace gauntlet::backends::vulkan
