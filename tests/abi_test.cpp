// The shared part of the C ABI, over every registered program: variant tables, kernel lists and
// their attributes, the shared argument check. Host-only except the attributes.
#include "util.h"

using namespace tctest;

TEST(VariantTable, EveryRowIsComplete) {
    ASSERT_GE(programs().size(), 3u);
    for (const tc_program *p : programs()) {
        const std::string program = tc_program_name(p);
        EXPECT_GT(std::strlen(tc_program_unit(p)), 0u);
        const int count = tc_variant_count(p);
        ASSERT_GT(count, 0) << program;
        for (int i = 0; i < count; ++i) {
            const tc_variant *v = tc_variant_at(p, i);
            ASSERT_NE(v, nullptr);
            EXPECT_GT(std::strlen(v->name), 0u);
            EXPECT_GT(std::strlen(v->summary), 0u);
            EXPECT_GT(std::strlen(v->domain), 0u);
            EXPECT_GT(std::strlen(v->bytes), 0u);
            EXPECT_EQ(tc_variant_find(p, v->name), i);
            // a device variant lists its kernels; a library baseline lists none
            if (v->flags & TC_LIBRARY) EXPECT_EQ(v->kernel_count, 0) << program << " " << v->name;
            else EXPECT_GT(v->kernel_count, 0) << program << " " << v->name;
            for (int k = 0; k < v->kernel_count; ++k) {
                EXPECT_NE(v->kernels[k].function, nullptr) << program << " " << v->name;
                for (int j = 0; j < k; ++j)
                    EXPECT_NE(v->kernels[j].function, v->kernels[k].function)
                        << program << " " << v->name << " lists " << v->kernels[k].name << " twice";
            }
        }
        EXPECT_EQ(tc_variant_at(p, count), nullptr);
        EXPECT_EQ(tc_variant_at(p, -1), nullptr);
        EXPECT_EQ(tc_variant_find(p, "nope"), -1);
    }
    EXPECT_EQ(tc_variant_count(nullptr), 0);
    EXPECT_EQ(tc_variant_at(nullptr, 0), nullptr);
}

TEST(CheckRequest, SharedArgumentRules) {
    const tc_device d = fake_device();
    for (const tc_program *p : programs()) {
        const std::string program = tc_program_name(p);
        tc_launch l;
        const auto check = [&](int variant, int64_t n, int threads, int blocks, const tc_device *dev = nullptr) {
            const tc_request r{variant, n, threads, blocks};
            return tc_check_request(p, &r, dev ? dev : &d, 256, &l);
        };
        EXPECT_EQ(TC_BAD_ARGUMENT, check(0, 0, 256, 0)) << program;      // n < 1
        EXPECT_EQ(TC_BAD_ARGUMENT, check(0, -5, 256, 0)) << program;
        EXPECT_EQ(TC_BAD_ARGUMENT, check(0, 100, 48, 0)) << program;     // not a multiple of 32
        EXPECT_EQ(TC_BAD_ARGUMENT, check(0, 100, 2048, 0)) << program;   // > 1024
        EXPECT_EQ(TC_BAD_ARGUMENT, check(-1, 100, 256, 0)) << program;   // unknown variant
        EXPECT_EQ(TC_BAD_ARGUMENT, check(tc_variant_count(p), 100, 256, 0)) << program;
        EXPECT_EQ(TC_BAD_ARGUMENT, check(0, 100, 256, -1)) << program;   // negative blocks
        const tc_request r{0, 100, 256, 0};
        EXPECT_EQ(TC_BAD_ARGUMENT, tc_check_request(p, &r, nullptr, 256, &l)) << program;
        tc_device broken = d;
        broken.multiprocessors = 0;
        EXPECT_EQ(TC_BAD_ARGUMENT, check(0, 100, 256, 0, &broken)) << program;
        for (int v = 0; v < tc_variant_count(p); ++v) {
            const int flags = tc_variant_at(p, v)->flags;
            ASSERT_EQ(TC_OK, check(v, 100, 0, 0)) << program;
            EXPECT_EQ(l.threads, 256);  // the default given
            EXPECT_EQ(l.n, 100);
            EXPECT_EQ(l.variant, v);
            EXPECT_EQ(check(v, 100, 96, 0), (flags & TC_POW2_THREADS) ? TC_BAD_ARGUMENT : TC_OK) << program;
            EXPECT_EQ(check(v, 100, 256, 7), (flags & TC_OWN_GRID) ? TC_OUTSIDE_DOMAIN : TC_OK) << program;
        }
        tc_device old = d;
        old.max_grid_x = 65535;
        EXPECT_NE(TC_OK, check(0, 100, 256, 65536, &old)) << program;  // more blocks than the grid holds
    }
}

TEST(KernelAttributes, EveryListedKernel) {
    REQUIRE_GPU();
    for (const tc_program *p : programs())
        for (int v = 0; v < tc_variant_count(p); ++v)
            for (int k = 0; k < tc_variant_at(p, v)->kernel_count; ++k) {
                tc_kernel_info a{};
                ASSERT_EQ(TC_OK, tc_kernel_attributes(p, v, k, &a)) << tc_program_name(p) << " " << v << " " << k;
                EXPECT_STREQ(a.kernel, tc_variant_at(p, v)->kernels[k].name);
                EXPECT_GT(a.registers, 0);
                EXPECT_GE(a.max_threads_per_block, 32);
            }
    tc_kernel_info a{};
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_kernel_attributes(programs()[0], 0, 999, &a));
}

TEST(Status, NamesOwnAndCudaCodes) {
    EXPECT_STREQ(tc_status_name(TC_OUTSIDE_DOMAIN), "TC_OUTSIDE_DOMAIN");
    EXPECT_STREQ(tc_status_name(TC_BAD_ARGUMENT), "TC_BAD_ARGUMENT");
    EXPECT_STREQ(tc_status_name(TC_UNAVAILABLE), "TC_UNAVAILABLE");
    EXPECT_STREQ(tc_status_name(int(cudaErrorInsufficientDriver)), "cudaErrorInsufficientDriver");
    EXPECT_STREQ(tc_status_name(int(cudaErrorNoDevice)), "cudaErrorNoDevice");
}
