// Opening a device, buffers, and moving data (directly through a mapping, or through a staging
// buffer and a copy command where the device-local memory is not host-visible or staging is
// forced).
#include <cstring>

#include "backends/vulkan/vk_device_impl.h"

namespace gauntlet::backends::vulkan {

namespace {

constexpr uint64_t kWaitNanoseconds = 120ull * 1000 * 1000 * 1000;

std::string bytes_text(uint64_t bytes) { return std::to_string(bytes) + " bytes"; }

// Makes every earlier shader or transfer write visible to a following transfer.
void transfer_barrier_before(const vk::raii::CommandBuffer& cmd) {
  vk::MemoryBarrier barrier(vk::AccessFlagBits::eShaderWrite | vk::AccessFlagBits::eTransferWrite,
                            vk::AccessFlagBits::eTransferRead | vk::AccessFlagBits::eTransferWrite);
  cmd.pipelineBarrier(
      vk::PipelineStageFlagBits::eComputeShader | vk::PipelineStageFlagBits::eTransfer,
      vk::PipelineStageFlagBits::eTransfer, {}, barrier, {}, {});
}

// Makes a transfer's writes visible to later shaders, transfers and the host.
void transfer_barrier_after(const vk::raii::CommandBuffer& cmd) {
  vk::MemoryBarrier barrier(vk::AccessFlagBits::eTransferWrite,
                            vk::AccessFlagBits::eShaderRead | vk::AccessFlagBits::eShaderWrite |
                                vk::AccessFlagBits::eTransferRead | vk::AccessFlagBits::eHostRead);
  cmd.pipelineBarrier(vk::PipelineStageFlagBits::eTransfer,
                      vk::PipelineStageFlagBits::eComputeShader |
                          vk::PipelineStageFlagBits::eTransfer | vk::PipelineStageFlagBits::eHost,
                      {}, barrier, {}, {});
}

}  // namespace

Result<std::unique_ptr<Device>> open(int index, const core::Options& options) {
  const std::string name = device_name(index);
  return guarded(name, [&]() -> Result<std::unique_ptr<Device>> {
    auto core = std::make_shared<VkCore>();
    core->name = name;
    core->force_staging = options.vulkan_force_staging;
    core->instance = create_instance(options.vulkan_validation);
    auto devices = compute_devices(core->instance->instance);
    if (index < 0 || static_cast<size_t>(index) >= devices.size()) {
      return core::make_error(core::ErrorKind::not_found,
                              "no such Vulkan device; this machine has " +
                                  std::to_string(devices.size()) + " with a compute queue",
                              name);
    }
    ComputeDevice& chosen = devices[index];
    const uint32_t api = device_api(chosen.physical, core->instance->api_version);
    core::DeviceInfo info = describe(chosen, index, core->instance->api_version);

    FeatureChain features(chosen.physical, api);
    float priority = 1.0f;
    vk::DeviceQueueCreateInfo queue({}, chosen.queue_family, 1, &priority);
    auto extensions = device_extensions(chosen.physical.enumerateDeviceExtensionProperties());
    vk::DeviceCreateInfo create({}, queue, {}, extensions, nullptr, &features.head());
    core->device = vk::raii::Device(chosen.physical, create);
    core->queue = vk::raii::Queue(core->device, chosen.queue_family, 0);
    core->queue_family = chosen.queue_family;
    core->memory = chosen.physical.getMemoryProperties();
    core->limits = chosen.physical.getProperties().limits;
    core->max_allocation = info.max_mem_alloc_size;
    if (info.api_limits.contains("maxBufferSize")) {
      core->max_buffer = info.api_limits["maxBufferSize"].get<uint64_t>();
    }
    core->timestamp_bits =
        chosen.physical.getQueueFamilyProperties()[chosen.queue_family].timestampValidBits;
    core->physical = std::move(chosen.physical);
    return std::unique_ptr<Device>(std::make_unique<VulkanDevice>(std::move(info), core));
  });
}

VulkanDevice::VulkanDevice(core::DeviceInfo info, std::shared_ptr<VkCore> core)
    : Device(std::move(info)), core_(std::move(core)) {
  const auto& device = core_->device;
  command_pool_ = vk::raii::CommandPool(
      device, vk::CommandPoolCreateInfo(vk::CommandPoolCreateFlagBits::eResetCommandBuffer,
                                        core_->queue_family));
  vk::raii::CommandBuffers buffers(
      device, vk::CommandBufferAllocateInfo(*command_pool_, vk::CommandBufferLevel::ePrimary, 1));
  cmd_ = std::move(buffers[0]);
  fence_ = vk::raii::Fence(device, vk::FenceCreateInfo());
  vk::DescriptorPoolSize sizes[2] = {{vk::DescriptorType::eStorageBuffer, kPoolDescriptors},
                                     {vk::DescriptorType::eUniformTexelBuffer, kPoolDescriptors}};
  descriptor_pool_ =
      vk::raii::DescriptorPool(device, vk::DescriptorPoolCreateInfo({}, kBatchDispatches, sizes));
  if (core_->timestamp_bits > 0) {
    timestamps_ =
        vk::raii::QueryPool(device, vk::QueryPoolCreateInfo({}, vk::QueryType::eTimestamp, 2));
  }
}

VulkanDevice::~VulkanDevice() {
  // Work still recorded runs to completion before its buffers and pipelines go.
  Status flushed = guarded(name(), [&]() -> Status {
    if (hung_) return Status::ok();  // waiting for idle would hang too
    flush();
    core_->device.waitIdle();
    return Status::ok();
  });
  (void)flushed;
}

uint32_t VulkanDevice::pick_memory_type(uint32_t allowed, vk::MemoryPropertyFlags wanted) const {
  for (uint32_t t = 0; t < core_->memory.memoryTypeCount; ++t) {
    if ((allowed & (1u << t)) && (core_->memory.memoryTypes[t].propertyFlags & wanted) == wanted) {
      return t;
    }
  }
  return UINT32_MAX;
}

Result<std::unique_ptr<Buffer>> VulkanDevice::do_allocate(size_t bytes) {
  const auto& limits = core_->limits;
  if (bytes > core_->max_allocation) {
    std::string message = "allocation of " + bytes_text(bytes) +
                          " exceeds maxMemoryAllocationSize (" + bytes_text(core_->max_allocation) +
                          ")";
    if (bytes > limits.maxStorageBufferRange) {
      message += " and maxStorageBufferRange (" + bytes_text(limits.maxStorageBufferRange) + ")";
    }
    return error(core::ErrorKind::out_of_memory, message);
  }
  if (bytes > limits.maxStorageBufferRange) {
    return error(core::ErrorKind::invalid_argument,
                 "allocation of " + bytes_text(bytes) + " exceeds maxStorageBufferRange (" +
                     bytes_text(limits.maxStorageBufferRange) +
                     "): a storage buffer that large cannot be bound; split it");
  }
  if (core_->max_buffer != 0 && bytes > core_->max_buffer) {
    return error(core::ErrorKind::invalid_argument, "allocation of " + bytes_text(bytes) +
                                                        " exceeds maxBufferSize (" +
                                                        bytes_text(core_->max_buffer) + ")");
  }
  return guarded(name(), [&]() -> Result<std::unique_ptr<Buffer>> {
    auto res = std::make_shared<BufferResource>();
    res->core = core_;
    vk::BufferCreateInfo info(
        {}, bytes,
        vk::BufferUsageFlagBits::eStorageBuffer | vk::BufferUsageFlagBits::eUniformTexelBuffer |
            vk::BufferUsageFlagBits::eTransferSrc | vk::BufferUsageFlagBits::eTransferDst,
        vk::SharingMode::eExclusive);
    res->buffer = vk::raii::Buffer(core_->device, info);
    auto req = res->buffer.getMemoryRequirements();
    uint32_t type = pick_memory_type(req.memoryTypeBits, vk::MemoryPropertyFlagBits::eDeviceLocal);
    if (type == UINT32_MAX) type = pick_memory_type(req.memoryTypeBits, {});
    if (type == UINT32_MAX) {
      return error(core::ErrorKind::unsupported, "no memory type can hold a storage buffer");
    }
    const auto& heap = core_->memory.memoryHeaps[core_->memory.memoryTypes[type].heapIndex];
    if (req.size > heap.size) {
      return error(core::ErrorKind::out_of_memory,
                   "allocation of " + bytes_text(bytes) + " exceeds the size of memory heap " +
                       std::to_string(core_->memory.memoryTypes[type].heapIndex) + " (" +
                       bytes_text(heap.size) + ")");
    }
    res->memory = vk::raii::DeviceMemory(core_->device, vk::MemoryAllocateInfo(req.size, type));
    res->buffer.bindMemory(*res->memory, 0);
    const auto host =
        vk::MemoryPropertyFlagBits::eHostVisible | vk::MemoryPropertyFlagBits::eHostCoherent;
    if (!core_->force_staging && (core_->memory.memoryTypes[type].propertyFlags & host) == host) {
      res->mapped = static_cast<std::byte*>(res->memory.mapMemory(0, VK_WHOLE_SIZE));
    }
    return std::unique_ptr<Buffer>(
        std::make_unique<VulkanBuffer>(uid(), name(), bytes, accounting(), std::move(res)));
  });
}

void VulkanDevice::ensure_staging() {
  if (staging_) return;
  auto res = std::make_unique<BufferResource>();
  res->core = core_;
  vk::BufferCreateInfo info(
      {}, kStagingBytes,
      vk::BufferUsageFlagBits::eTransferSrc | vk::BufferUsageFlagBits::eTransferDst,
      vk::SharingMode::eExclusive);
  res->buffer = vk::raii::Buffer(core_->device, info);
  auto req = res->buffer.getMemoryRequirements();
  uint32_t type =
      pick_memory_type(req.memoryTypeBits, vk::MemoryPropertyFlagBits::eHostVisible |
                                               vk::MemoryPropertyFlagBits::eHostCoherent);
  if (type == UINT32_MAX) {
    fail(core::ErrorKind::unsupported, "no host-visible, coherent memory type for staging", name());
  }
  res->memory = vk::raii::DeviceMemory(core_->device, vk::MemoryAllocateInfo(req.size, type));
  res->buffer.bindMemory(*res->memory, 0);
  res->mapped = static_cast<std::byte*>(res->memory.mapMemory(0, VK_WHOLE_SIZE));
  staging_ = std::move(res);
}

void VulkanDevice::submit_and_wait() {
  if (hung_) {
    fail(core::ErrorKind::timeout,
         "an earlier submission never finished; this device takes no more work", name());
  }
  vk::SubmitInfo submit({}, {}, *cmd_);
  core_->queue.submit(submit, *fence_);
  if (core_->device.waitForFences(*fence_, VK_TRUE, kWaitNanoseconds) == vk::Result::eTimeout) {
    hung_ = true;
    fail(core::ErrorKind::timeout,
         "vkWaitForFences: a submission did not finish within " +
             std::to_string(kWaitNanoseconds / 1000000000) + " s",
         name());
  }
  core_->device.resetFences(*fence_);
}

Status VulkanDevice::do_upload(Buffer& dst, std::span<const std::byte> src, size_t offset) {
  return guarded(name(), [&]() -> Status {
    flush();  // earlier dispatches may still read the old contents
    const auto& res = *static_cast<VulkanBuffer&>(dst).res();
    if (res.mapped != nullptr) {
      std::memcpy(res.mapped + offset, src.data(), src.size());
      return Status::ok();
    }
    ensure_staging();
    for (size_t done = 0; done < src.size();) {
      const size_t chunk = std::min(kStagingBytes, src.size() - done);
      std::memcpy(staging_->mapped, src.data() + done, chunk);
      cmd_.begin(vk::CommandBufferBeginInfo(vk::CommandBufferUsageFlagBits::eOneTimeSubmit));
      transfer_barrier_before(cmd_);
      cmd_.copyBuffer(*staging_->buffer, *res.buffer, vk::BufferCopy(0, offset + done, chunk));
      transfer_barrier_after(cmd_);
      cmd_.end();
      submit_and_wait();
      done += chunk;
    }
    return Status::ok();
  });
}

Status VulkanDevice::do_download(const Buffer& src, std::span<std::byte> dst, size_t offset) {
  return guarded(name(), [&]() -> Status {
    flush();  // the download sees every dispatch before it
    const auto& res = *static_cast<const VulkanBuffer&>(src).res();
    if (res.mapped != nullptr) {
      std::memcpy(dst.data(), res.mapped + offset, dst.size());
      return Status::ok();
    }
    ensure_staging();
    for (size_t done = 0; done < dst.size();) {
      const size_t chunk = std::min(kStagingBytes, dst.size() - done);
      cmd_.begin(vk::CommandBufferBeginInfo(vk::CommandBufferUsageFlagBits::eOneTimeSubmit));
      transfer_barrier_before(cmd_);
      cmd_.copyBuffer(*res.buffer, *staging_->buffer, vk::BufferCopy(offset + done, 0, chunk));
      transfer_barrier_after(cmd_);
      cmd_.end();
      submit_and_wait();
      std::memcpy(dst.data() + done, staging_->mapped, chunk);
      done += chunk;
    }
    return Status::ok();
  });
}

Status VulkanDevice::do_finish() {
  return guarded(name(), [&]() -> Status {
    flush();
    return Status::ok();
  });
}

}  // namespace gauntlet::backends::vulkan
