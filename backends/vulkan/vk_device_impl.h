#pragma once
// Internal to backends/vulkan: the Device subclass, split over vk_device.cpp (buffers, transfers)
// and vk_dispatch.cpp (kernels, batched dispatch, timing).
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "backends/vulkan/spirv_reflect.h"
#include "backends/vulkan/vk_common.h"
#include "backends/vulkan/vulkan_device.h"

namespace gauntlet::backends::vulkan {

// The instance and logical device. Buffers and kernels hold it too, so that one freed after its
// Device object is gone still has a live VkDevice to be destroyed with.
struct VkCore {
  std::unique_ptr<InstanceBundle> instance;
  vk::raii::PhysicalDevice physical{nullptr};
  vk::raii::Device device{nullptr};
  vk::raii::Queue queue{nullptr};
  uint32_t queue_family = 0;
  vk::PhysicalDeviceMemoryProperties memory;
  vk::PhysicalDeviceLimits limits;
  uint64_t max_allocation = 0;  // maxMemoryAllocationSize
  uint64_t max_buffer = 0;      // maxBufferSize (Maintenance4), 0 when unknown
  uint32_t timestamp_bits = 0;  // timestampValidBits of the queue family
  bool force_staging = false;
  std::string name;  // "vulkan:N"
};

struct BufferResource {
  std::shared_ptr<VkCore> core;
  vk::raii::Buffer buffer{nullptr};
  vk::raii::DeviceMemory memory{nullptr};
  std::byte* mapped = nullptr;  // set when the host reads and writes it directly
};

class VulkanBuffer final : public Buffer {
 public:
  VulkanBuffer(uint64_t owner, std::string owner_name, size_t size,
               std::shared_ptr<MemoryAccounting> accounting, std::shared_ptr<BufferResource> res)
      : Buffer(owner, std::move(owner_name), size, std::move(accounting)), res_(std::move(res)) {}
  const std::shared_ptr<BufferResource>& res() const { return res_; }

 private:
  std::shared_ptr<BufferResource> res_;
};

struct PipelineResource {
  std::shared_ptr<VkCore> core;
  vk::raii::ShaderModule module{nullptr};
  vk::raii::DescriptorSetLayout set_layout{nullptr};
  vk::raii::PipelineLayout layout{nullptr};
  vk::raii::Pipeline pipeline{nullptr};
};

class VulkanKernel final : public Kernel {
 public:
  VulkanKernel(uint64_t owner, KernelSource source, std::shared_ptr<PipelineResource> res)
      : Kernel(owner, std::move(source)), res_(std::move(res)) {}
  const std::shared_ptr<PipelineResource>& res() const { return res_; }

 private:
  std::shared_ptr<PipelineResource> res_;
};

class VulkanDevice final : public Device {
 public:
  VulkanDevice(core::DeviceInfo info, std::shared_ptr<VkCore> core);
  ~VulkanDevice() override;

 protected:
  Result<std::unique_ptr<Buffer>> do_allocate(size_t bytes) override;
  Status do_upload(Buffer& dst, std::span<const std::byte> src, size_t offset) override;
  Status do_download(const Buffer& src, std::span<std::byte> dst, size_t offset) override;
  Result<std::unique_ptr<Kernel>> do_build(const KernelSource& source) override;
  Status do_dispatch(const Kernel& kernel, const DispatchArgs& args) override;
  Status do_finish() override;

 private:
  // Dispatches recorded but not yet submitted: one command buffer, one descriptor pool.
  static constexpr uint32_t kBatchDispatches = 256;
  static constexpr uint32_t kPoolDescriptors = 4096;
  static constexpr size_t kStagingBytes = 16u << 20;

  void begin_batch_if_idle();
  // Ends, submits and waits for the recorded batch, then recycles its pool. Throws on failure.
  void flush();
  void submit_and_wait();
  void record_dispatch(const VulkanKernel& kernel, const DispatchArgs& args);
  double timed_dispatch(const VulkanKernel& kernel, const DispatchArgs& args);
  void ensure_staging();
  uint32_t pick_memory_type(uint32_t allowed, vk::MemoryPropertyFlags wanted) const;

  std::shared_ptr<VkCore> core_;
  vk::raii::CommandPool command_pool_{nullptr};
  vk::raii::CommandBuffer cmd_{nullptr};
  vk::raii::Fence fence_{nullptr};
  vk::raii::DescriptorPool descriptor_pool_{nullptr};
  vk::raii::QueryPool timestamps_{nullptr};
  std::unique_ptr<BufferResource> staging_;
  bool recording_ = false;
  bool hung_ = false;  // a submission never finished: no more work goes to this queue
  uint32_t batch_dispatches_ = 0;
  uint32_t batch_descriptors_ = 0;
  std::vector<std::shared_ptr<const void>> keep_alive_;
};

}  // namespace gauntlet::backends::vulkan
