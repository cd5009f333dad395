// The C ABI's host-only parts: variant tables, argument checks, domains and plans. No GPU needed.
#include "util.h"

using namespace tctest;

TEST(VariantTable, EveryRowIsComplete) {
    for (int p = 0; p < TC_PROGRAM_COUNT; ++p) {
        const int count = tc_variant_count(tc_program(p));
        ASSERT_GT(count, 0);
        for (int i = 0; i < count; ++i) {
            const tc_variant *v = tc_variant_at(tc_program(p), i);
            ASSERT_NE(v, nullptr);
            EXPECT_GT(std::strlen(v->name), 0u);
            EXPECT_GT(std::strlen(v->summary), 0u);
            EXPECT_GT(std::strlen(v->domain), 0u);
            EXPECT_GT(std::strlen(v->bytes), 0u);
            EXPECT_EQ(tc_variant_find(tc_program(p), v->name), i);
        }
        EXPECT_EQ(tc_variant_at(tc_program(p), count), nullptr);
        EXPECT_EQ(tc_variant_at(tc_program(p), -1), nullptr);
    }
    EXPECT_EQ(tc_variant_find(TC_RAZDALJA, "nope"), -1);
    EXPECT_EQ(tc_variant_count(TC_PROGRAM_COUNT), 0);
}

TEST(Plan, RejectsBadArguments) {
    const tc_device d = fake_device();
    tc_plan p;
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_plan_launch(TC_RAZLIKA, 3, 0, 256, 0, &d, &p));    // n < 1
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_plan_launch(TC_RAZLIKA, 3, -5, 256, 0, &d, &p));
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_plan_launch(TC_RAZLIKA, 3, 100, 48, 0, &d, &p));   // not a multiple of 32
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_plan_launch(TC_RAZLIKA, 3, 100, 2048, 0, &d, &p)); // > 1024
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_plan_launch(TC_RAZLIKA, 99, 100, 256, 0, &d, &p)); // unknown variant
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_plan_launch(TC_RAZLIKA, 3, 100, 256, -1, &d, &p)); // negative blocks
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_plan_launch(TC_RAZLIKA, 3, 100, 256, 0, nullptr, &p));
}

TEST(Plan, RazlikaDomains) {
    const tc_device d = fake_device();
    const int v1 = tc_variant_find(TC_RAZLIKA, "1"), v2 = tc_variant_find(TC_RAZLIKA, "2"),
              v3 = tc_variant_find(TC_RAZLIKA, "3"), v4 = tc_variant_find(TC_RAZLIKA, "4");
    tc_plan p;
    ASSERT_EQ(TC_OK, tc_plan_launch(TC_RAZLIKA, v1, 1024, 0, 0, &d, &p));
    EXPECT_EQ(p.threads, 1024);
    EXPECT_EQ(p.blocks, 1);
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, tc_plan_launch(TC_RAZLIKA, v1, 1025, 0, 0, &d, &p));
    EXPECT_EQ(TC_OK, tc_plan_launch(TC_RAZLIKA, v2, 256, 256, 0, &d, &p));
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, tc_plan_launch(TC_RAZLIKA, v2, 257, 256, 0, &d, &p));
    ASSERT_EQ(TC_OK, tc_plan_launch(TC_RAZLIKA, v3, 1025, 256, 0, &d, &p));
    EXPECT_EQ(p.blocks, 5);
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, tc_plan_launch(TC_RAZLIKA, v3, 1025, 256, 4, &d, &p));  // grid too small
    const tc_device old{16, 2048, 65535};  // a device whose grid holds at most 65535 blocks
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, tc_plan_launch(TC_RAZLIKA, v3, 65536, 256, 65536, &old, &p));
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, tc_plan_launch(TC_RAZLIKA, v3, 65535LL * 256 + 1, 256, 0, &old, &p));
    ASSERT_EQ(TC_OK, tc_plan_launch(TC_RAZLIKA, v4, int64_t(1) << 30, 256, 0, &d, &p));
    EXPECT_EQ(p.blocks, 132 * 8);  // one resident wave
    EXPECT_DOUBLE_EQ(p.bytes_moved, 12.0 * double(int64_t(1) << 30));
    ASSERT_EQ(TC_OK, tc_plan_launch(TC_RAZLIKA, v4, 33, 32, 0, &d, &p));
    EXPECT_EQ(p.blocks, 2);  // no more blocks than n needs
}

TEST(Plan, RazdaljaDomainsAndOutputs) {
    const tc_device d = fake_device();
    tc_plan p;
    const int la2 = tc_variant_find(TC_RAZDALJA, "la2");
    EXPECT_EQ(TC_OK, tc_plan_launch(TC_RAZDALJA, la2, int64_t(1) << 22, 256, 0, &d, &p));
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, tc_plan_launch(TC_RAZDALJA, la2, (int64_t(1) << 22) + 1, 256, 0, &d, &p));
    ASSERT_EQ(TC_OK, tc_plan_launch(TC_RAZDALJA, tc_variant_find(TC_RAZDALJA, "g"), 1000, 256, 0, &d, &p));
    EXPECT_EQ(p.out_count, 1000);
    ASSERT_EQ(TC_OK, tc_plan_launch(TC_RAZDALJA, tc_variant_find(TC_RAZDALJA, "ls3"), 100000, 128, 7, &d, &p));
    EXPECT_EQ(p.out_count, 7);
    EXPECT_EQ(p.blocks, 7);
    ASSERT_EQ(TC_OK, tc_plan_launch(TC_RAZDALJA, tc_variant_find(TC_RAZDALJA, "best"), 1000, 256, 0, &d, &p));
    EXPECT_EQ(p.out_count, 1);
    EXPECT_GE(p.scratch_bytes, sizeof(float) * p.blocks);
}

TEST(Tolerance, GrowsWithDepthAndCoversSmallCases) {
    const tc_device d = fake_device();
    tc_plan small, large;
    const int ls = tc_variant_find(TC_RAZDALJA, "ls");
    ASSERT_EQ(TC_OK, tc_plan_launch(TC_RAZDALJA, ls, 1000, 256, 0, &d, &small));
    ASSERT_EQ(TC_OK, tc_plan_launch(TC_RAZDALJA, ls, int64_t(1) << 28, 256, 0, &d, &large));
    const double ts = tc_razdalja_tolerance(&small), tl = tc_razdalja_tolerance(&large);
    // ls: depth = terms a thread adds + threads; each level adds at most 2^-24 relative, halved by the root.
    EXPECT_NEAR(ts, 0.5 * (small.accumulation_depth + 2) * 0x1p-24, 1e-9);
    EXPECT_GT(tl, ts);
    EXPECT_LT(tl, 1e-3);
    // la2 at its domain's edge: n*2^-24 = 1/4, so the bound is about 1/6 of dist.
    tc_plan la2;
    ASSERT_EQ(TC_OK, tc_plan_launch(TC_RAZDALJA, tc_variant_find(TC_RAZDALJA, "la2"), int64_t(1) << 22, 256, 0, &d, &la2));
    EXPECT_NEAR(tc_razdalja_tolerance(&la2), 0.5 * (1.0 / 3.0), 1e-3);
}

TEST(Finish, SumsPartialsInFloat64) {
    const tc_device d = fake_device();
    tc_plan p;
    ASSERT_EQ(TC_OK, tc_plan_launch(TC_RAZDALJA, tc_variant_find(TC_RAZDALJA, "g"), 1 << 25, 256, 0, &d, &p));
    // 2^25 ones: a float32 running sum would stall at 2^24.
    std::vector<float> ones(size_t(1) << 25, 1.0f);
    EXPECT_EQ(tc_razdalja_finish(&p, ones.data()), double(1 << 25));
    ASSERT_EQ(TC_OK, tc_plan_launch(TC_RAZDALJA, tc_variant_find(TC_RAZDALJA, "la1"), 100, 256, 0, &d, &p));
    const float scalar[] = {42.5f, 1.0f};
    EXPECT_EQ(tc_razdalja_finish(&p, scalar), 42.5);
}

TEST(Status, NamesOwnAndCudaCodes) {
    EXPECT_STREQ(tc_status_name(TC_OUTSIDE_DOMAIN), "TC_OUTSIDE_DOMAIN");
    EXPECT_STREQ(tc_status_name(int(cudaErrorInsufficientDriver)), "cudaErrorInsufficientDriver");
    EXPECT_STREQ(tc_status_name(int(cudaErrorNoDevice)), "cudaErrorNoDevice");
}
