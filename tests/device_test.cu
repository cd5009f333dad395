// The device a plan is made for: the profiles of TECAJ_EMULATE (host only), tc_device_describe
// under TECAJ_EMULATE, and the occupancy rules an emulated plan uses (common.cuh's
// resident_blocks), against the runtime's own query for every kernel the library lists.
#include "runtime/common.cuh"
#include "util.h"
#include <cstdlib>
#include <cstring>

using namespace tctest;

TEST(Device, EveryProfileIsASaneDevice) {
    int count = 0;
    for (const char *name; (name = tc_device_profile_name(count)) != nullptr; ++count) {
        tc_device d{};
        ASSERT_EQ(TC_OK, tc_device_profile(name, &d)) << name;
        EXPECT_STREQ(d.profile, name);
        EXPECT_GE(d.compute_major * 10 + d.compute_minor, 75) << name;
        EXPECT_LE(d.compute_major * 10 + d.compute_minor, 90) << name;
        EXPECT_LE(d.shared_per_block, d.shared_per_block_optin) << name;
        EXPECT_LE(d.shared_per_block_optin, d.shared_per_multiprocessor) << name;
        EXPECT_EQ(0, d.max_threads_per_multiprocessor % 32) << name;
        // the memory system: a peak from the vendor's clock and bus, and Little's law over the SMs
        EXPECT_GT(d.memory_bandwidth, 200e9) << name;
        EXPECT_LT(d.memory_bandwidth, 10e12) << name;
        EXPECT_NEAR(double(d.bytes_in_flight_per_sm), d.memory_bandwidth * TC_LOADED_LATENCY_NS * 1e-9 / d.multiprocessors, 1.0)
            << name;
        const tc_request r{0, 1000, 256, 0};
        tc_launch l;
        for (const tc_program *p : programs()) EXPECT_EQ(TC_OK, tc_check_request(p, &r, &d, 256, &l)) << name;
        std::printf("profile %-8s sm_%d%d %4d SMs %5d threads/SM %3zu KiB shared/SM %3zu MiB L2 %5.0f GB/s %3zu KiB in flight/SM\n",
                    name, d.compute_major, d.compute_minor, d.multiprocessors, d.max_threads_per_multiprocessor,
                    d.shared_per_multiprocessor / 1024, d.l2_bytes >> 20, d.memory_bandwidth / 1e9,
                    d.bytes_in_flight_per_sm / 1024);
    }
    EXPECT_EQ(count, 5);
    // the H200: the H100's processor, 1.4 times its bandwidth, so each SM keeps more bytes in flight
    tc_device h200{}, a100{};
    ASSERT_EQ(TC_OK, tc_device_profile("h200", &h200));
    ASSERT_EQ(TC_OK, tc_device_profile("a100", &a100));
    EXPECT_EQ(h200.multiprocessors, 132);
    EXPECT_GT(h200.bytes_in_flight_per_sm, a100.bytes_in_flight_per_sm);
    tc_device d{};
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_device_profile("h42", &d));
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_device_profile(nullptr, &d));
}

TEST(Device, DescribeHonoursTecajEmulate) {
    REQUIRE_GPU();
    const char *before = std::getenv("TECAJ_EMULATE");
    const std::string saved = before ? before : "";
    tc_device real{}, t4{}, want{};
    unsetenv("TECAJ_EMULATE");
    EXPECT_EQ(TC_OK, tc_device_describe(&real));
    setenv("TECAJ_EMULATE", "t4", 1);
    EXPECT_EQ(TC_OK, tc_device_describe(&t4));
    setenv("TECAJ_EMULATE", "h42", 1);
    tc_device bad{};
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_device_describe(&bad));
    if (before) setenv("TECAJ_EMULATE", saved.c_str(), 1);
    else unsetenv("TECAJ_EMULATE");
    ASSERT_EQ(TC_OK, tc_device_profile("t4", &want));
    EXPECT_STREQ(real.profile, "");
    EXPECT_STREQ(t4.profile, "t4");
    EXPECT_EQ(t4.multiprocessors, want.multiprocessors);
    EXPECT_EQ(t4.shared_per_multiprocessor, want.shared_per_multiprocessor);
    EXPECT_GE(real.shared_per_block_optin, real.shared_per_block);
    EXPECT_GT(real.l2_bytes, 0u);
    EXPECT_GE(real.max_blocks_per_multiprocessor, 16);
    EXPECT_GT(real.memory_bandwidth, 100e9);  // (the memory clock and bus width the device reports)
    EXPECT_GT(real.bytes_in_flight_per_sm, 1024u);
    EXPECT_EQ(t4.memory_bandwidth, want.memory_bandwidth);
}

// The occupancy an emulated plan computes, given the real device's own limits, is the runtime's
// for every kernel the library lists, at every block size the kernel allows.
TEST(Device, OccupancyRulesAgreeWithTheRuntime) {
    REQUIRE_GPU();
    tc_device real{};  // (TECAJ_EMULATE may be set: read the device itself)
    {
        const char *before = std::getenv("TECAJ_EMULATE");
        const std::string saved = before ? before : "";
        unsetenv("TECAJ_EMULATE");
        ASSERT_EQ(TC_OK, tc_device_describe(&real));
        if (before) setenv("TECAJ_EMULATE", saved.c_str(), 1);
    }
    tc_device rules = real;
    std::strcpy(rules.profile, "self");  // the rules, on this device's figures
    int compared = 0;
    for (const tc_program *p : programs())
        for (int v = 0; v < tc_variant_count(p); ++v) {
            const tc_variant *var = tc_variant_at(p, v);
            for (int k = 0; k < var->kernel_count; ++k) {
                cudaFuncAttributes a;
                ASSERT_EQ(cudaSuccess, cudaFuncGetAttributes(&a, var->kernels[k].function));
                for (int threads = 32; threads <= a.maxThreadsPerBlock; threads *= 2) {
                    int runtime = 0;
                    ASSERT_EQ(cudaSuccess, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&runtime, var->kernels[k].function, threads, 0));
                    if (runtime < 1) continue;  // (a kernel that cannot run at this size is never planned at it)
                    EXPECT_EQ(runtime, tc::resident_blocks(rules, threads, var->kernels[k].function, 0))
                        << tc_program_name(p) << " " << var->kernels[k].name << " at " << threads << " threads ("
                        << a.numRegs << " registers, " << a.sharedSizeBytes << " bytes of static shared memory)";
                    ++compared;
                }
            }
        }
    std::printf("occupancy compared for %d (kernel, block size) pairs\n", compared);
    EXPECT_GT(compared, 100);
}
