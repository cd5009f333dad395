// What combining a few bytes a GPU costs over NCCL, the floor under -gpus's "combine": an
// all-gather of 16 bytes a rank, on 2 GPUs and on every GPU of this machine (ncclCommInitAll, one
// process), each pattern timed between events on every device behind a gate that holds all of
// them until the host has queued every device's work; the slowest device's time a rep, then the
// median and spread (interquartile range over the median) of 200 reps:
//   empty      an empty kernel on each device's stream (the floor of anything queued)
//   group      one thread, one ncclGroupStart/End over every communicator, non-blocking streams
//   group+fold the same, then a one-thread fold of the gathered parts on each device
//   graph      group+fold captured once in a CUDA graph a device, then replayed
//   legacy     one thread a GPU, each calling the all-gather alone on the legacy default stream
//              (the commands' pattern before this bench), behind the gate
//   ungated    legacy with no gate: each thread's own start event, then its call (the host's skew
//              between threads counts, as it did in the commands' combine)
// NCCL is loaded at run time (TECAJ_NCCL, else libnccl.so.2); NVLink multicast stays off. Built
// by CMake; on a GPU host: bash gpu-bundle/run.sh bench
#include <dlfcn.h>
#include <nccl.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <thread>
#include <vector>

#include "timing.cuh"

namespace {

struct Nccl {
    ncclResult_t (*CommInitAll)(ncclComm_t *, int, const int *);
    ncclResult_t (*CommDestroy)(ncclComm_t);
    ncclResult_t (*AllGather)(const void *, void *, size_t, ncclDataType_t, ncclComm_t, cudaStream_t);
    ncclResult_t (*GroupStart)();
    ncclResult_t (*GroupEnd)();
    ncclResult_t (*GetVersion)(int *);
    const char *(*GetErrorString)(ncclResult_t);
} nccl;

// Loads NCCL; the path tried, or nullptr where every symbol was found.
const char *load_nccl() {
    const char *path = std::getenv("TECAJ_NCCL");
    if (!path || !*path) path = "libnccl.so.2";
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) return path;
#define SYM(name) if (!(*(void **)&nccl.name = dlsym(h, "nccl" #name))) return path;
    SYM(CommInitAll) SYM(CommDestroy) SYM(AllGather) SYM(GroupStart) SYM(GroupEnd) SYM(GetVersion) SYM(GetErrorString)
#undef SYM
    return nullptr;
}

#define NK(x)                                                                          \
    do {                                                                               \
        ncclResult_t r_ = (x);                                                         \
        if (r_ != ncclSuccess) {                                                       \
            printf("%s: %s\n", #x, nccl.GetErrorString(r_));                           \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

constexpr size_t kPartBytes = 16;  // a rank's partial (redukcija's result: value, index)

// Holds the stream until the host writes gate[0] (mapped host memory, one word for every
// device), at least min_ns; gives up after 100 ms and says so in gate[1].
__global__ void gate_kernel(volatile unsigned *gate, unsigned long long min_ns) {
    const unsigned long long start = globaltimer_ns();
    for (;;) {
        const unsigned long long now = globaltimer_ns();
        if (now - start >= min_ns && gate[0] != 0u) return;
        if (now - start >= 100000000ull) {
            gate[1] = 1u;
            return;
        }
        __nanosleep(200);
    }
}

__global__ void empty_kernel() {}

// The parts' values (a double at the start of each) added left to right in GPU order.
__global__ void fold_kernel(const unsigned char *parts, int count, double *out) {
    double s = 0;
    for (int i = 0; i < count; ++i) s += *reinterpret_cast<const double *>(parts + i * kPartBytes);
    *out = s;
}

struct Dev {
    int index;
    cudaStream_t stream;
    cudaEvent_t start, stop;
    unsigned char *send, *recv;
    double *out;
    cudaGraphExec_t graph = nullptr;
};

struct Stats {
    double median, spread;
    int late;
};

Stats stats(std::vector<double> t, int late) {
    if (t.empty()) return {NAN, NAN, late};
    std::sort(t.begin(), t.end());
    const auto q = [&](double p) {
        const double x = p * double(t.size() - 1);
        const size_t i = size_t(x);
        return i + 1 >= t.size() ? t.back() : t[i] + (x - double(i)) * (t[i + 1] - t[i]);
    };
    return {q(0.5), 100 * (q(0.75) - q(0.25)) / q(0.5), late};
}

class Bench {
  public:
    Bench(int g, unsigned *gate) : gate_(gate) {
        std::vector<int> ids(g);
        for (int d = 0; d < g; ++d) ids[d] = d;
        comms_.resize(g);
        NK(nccl.CommInitAll(comms_.data(), g, ids.data()));
        devs_.resize(g);
        for (int d = 0; d < g; ++d) {
            Dev &v = devs_[d];
            v.index = d;
            CK(cudaSetDevice(d));
            CK(cudaStreamCreateWithFlags(&v.stream, cudaStreamNonBlocking));
            CK(cudaEventCreate(&v.start));
            CK(cudaEventCreate(&v.stop));
            CK(cudaMalloc(&v.send, kPartBytes));
            CK(cudaMalloc(&v.recv, kPartBytes * g));
            CK(cudaMalloc(&v.out, sizeof(double)));
            const double value = 1.0 + d;
            CK(cudaMemset(v.send, 0, kPartBytes));
            CK(cudaMemcpy(v.send, &value, sizeof value, cudaMemcpyHostToDevice));
        }
        sync_all();
    }

    ~Bench() {
        for (size_t d = 0; d < devs_.size(); ++d) {
            Dev &v = devs_[d];
            CK(cudaSetDevice(v.index));
            if (v.graph) CK(cudaGraphExecDestroy(v.graph));
            CK(cudaFree(v.send));
            CK(cudaFree(v.recv));
            CK(cudaFree(v.out));
            CK(cudaEventDestroy(v.start));
            CK(cudaEventDestroy(v.stop));
            CK(cudaStreamDestroy(v.stream));
            NK(nccl.CommDestroy(comms_[d]));
        }
    }

    int gpus() const { return int(devs_.size()); }

    void empty() {
        for (Dev &v : devs_) {
            CK(cudaSetDevice(v.index));
            empty_kernel<<<1, 1, 0, v.stream>>>();
        }
    }

    void group() {
        NK(nccl.GroupStart());
        for (size_t d = 0; d < devs_.size(); ++d)
            NK(nccl.AllGather(devs_[d].send, devs_[d].recv, kPartBytes, ncclUint8, comms_[d], devs_[d].stream));
        NK(nccl.GroupEnd());
    }

    void group_fold() {
        group();
        for (Dev &v : devs_) {
            CK(cudaSetDevice(v.index));
            fold_kernel<<<1, 1, 0, v.stream>>>(v.recv, gpus(), v.out);
        }
    }

    // Captures group_fold once a device (every stream captured at once, as NCCL's group needs).
    void capture() {
        for (Dev &v : devs_) {
            CK(cudaSetDevice(v.index));
            CK(cudaStreamBeginCapture(v.stream, cudaStreamCaptureModeThreadLocal));
        }
        group_fold();
        std::vector<cudaGraph_t> graphs(devs_.size());  // (every capture ends before any instantiation:
        for (size_t i = 0; i < devs_.size(); ++i) {       //  this thread may call nothing unsafe while one is open)
            CK(cudaSetDevice(devs_[i].index));
            CK(cudaStreamEndCapture(devs_[i].stream, &graphs[i]));
        }
        for (size_t i = 0; i < devs_.size(); ++i) {
            CK(cudaSetDevice(devs_[i].index));
            CK(cudaGraphInstantiate(&devs_[i].graph, graphs[i], 0));
            CK(cudaGraphDestroy(graphs[i]));
        }
        sync_all();
    }

    void graph() {
        for (Dev &v : devs_) {
            CK(cudaSetDevice(v.index));
            CK(cudaGraphLaunch(v.graph, v.stream));
        }
    }

    // One thread a GPU, each its own call on the legacy stream (own_us: each thread's own events
    // there too, its time in own_us[d], for the ungated pattern; else the caller's gate and events
    // surround the calls).
    void legacy(std::vector<double> *own_us) {
        std::vector<std::thread> threads;
        std::atomic<int> ready{0};
        for (size_t d = 0; d < devs_.size(); ++d)
            threads.emplace_back([&, d] {
                Dev &v = devs_[d];
                CK(cudaSetDevice(v.index));
                ready.fetch_add(1);
                while (ready.load() < gpus()) {}  // (the threads start their calls together)
                if (own_us) CK(cudaEventRecord(v.start, 0));
                NK(nccl.AllGather(v.send, v.recv, kPartBytes, ncclUint8, comms_[d], 0));
                if (own_us) {
                    CK(cudaEventRecord(v.stop, 0));
                    CK(cudaEventSynchronize(v.stop));
                    float ms;
                    CK(cudaEventElapsedTime(&ms, v.start, v.stop));
                    (*own_us)[d] = 1000.0 * ms;
                }
            });
        for (auto &t : threads) t.join();
    }

    // reps timed runs of queue (after warm untimed ones), each behind the gate on every device's
    // stream (legacy: the legacy stream): the slowest device's microseconds a rep.
    Stats gated(const std::function<void()> &queue, bool on_legacy, int reps = 200, int warm = 10) {
        for (int i = 0; i < warm; ++i) {
            queue();
            sync_all();
        }
        std::vector<double> t;
        int late = 0;
        while (int(t.size()) < reps) {
            __atomic_store_n(&gate_[0], 0u, __ATOMIC_SEQ_CST);
            __atomic_store_n(&gate_[1], 0u, __ATOMIC_SEQ_CST);
            for (Dev &v : devs_) {
                CK(cudaSetDevice(v.index));
                cudaStream_t s = on_legacy ? cudaStream_t(0) : v.stream;
                gate_kernel<<<1, 1, 0, s>>>(gate_, 20000);
                CK(cudaEventRecord(v.start, s));
            }
            queue();
            for (Dev &v : devs_) {
                CK(cudaSetDevice(v.index));
                CK(cudaEventRecord(v.stop, on_legacy ? cudaStream_t(0) : v.stream));
            }
            __atomic_store_n(&gate_[0], 1u, __ATOMIC_SEQ_CST);
            double slowest = 0;
            for (Dev &v : devs_) {
                CK(cudaSetDevice(v.index));
                CK(cudaEventSynchronize(v.stop));
                float ms;
                CK(cudaEventElapsedTime(&ms, v.start, v.stop));
                slowest = std::max(slowest, 1000.0 * ms);
            }
            if (__atomic_load_n(&gate_[1], __ATOMIC_SEQ_CST)) {
                if (++late == reps) break;  // (the host came after the gate gave up: not the work's time)
                continue;
            }
            t.push_back(slowest);
        }
        return stats(t, late);
    }

    // The ungated legacy pattern: each thread's own events around its call.
    Stats ungated(int reps = 200, int warm = 10) {
        std::vector<double> own(devs_.size()), t;
        for (int i = 0; i < warm + reps; ++i) {
            legacy(&own);
            if (i >= warm) t.push_back(*std::max_element(own.begin(), own.end()));
        }
        return stats(t, 0);
    }

    // Clears every device's fold result, so that the next check reads only what ran after it.
    void clear() {
        for (Dev &v : devs_) {
            CK(cudaSetDevice(v.index));
            CK(cudaMemset(v.out, 0, sizeof(double)));
        }
        sync_all();
    }

    // The fold's result on device 0: the parts' values 1 + d added in GPU order.
    bool check() {
        double got = 0, want = 0;
        for (int d = 0; d < gpus(); ++d) want += 1.0 + d;
        CK(cudaSetDevice(0));
        CK(cudaMemcpy(&got, devs_[0].out, sizeof got, cudaMemcpyDeviceToHost));
        return got == want;
    }

  private:
    void sync_all() {
        for (Dev &v : devs_) {
            CK(cudaSetDevice(v.index));
            CK(cudaDeviceSynchronize());
        }
    }

    unsigned *gate_;
    std::vector<ncclComm_t> comms_;
    std::vector<Dev> devs_;
};

void print(int g, const char *what, Stats s) {
    printf("%4d  %-11s %9.2f %9.1f%%", g, what, s.median, s.spread);
    if (s.late) printf("  (%d reps retimed: the host came after the gate gave up; queueing this waited for the device)", s.late);
    printf("\n");
}

}  // namespace

int main() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
    if (count < 2) {
        printf("bench_combine: %d GPU(s) here; the combine needs 2 or more, nothing to measure\n", count);
        return 0;
    }
    setenv("NCCL_NVLS_ENABLE", "0", 1);  // NVLink multicast off: on a shared host it can take GPUs out of service
    if (const char *path = load_nccl()) {
        printf("bench_combine: NCCL not loaded from %s (set TECAJ_NCCL to libnccl.so.2); nothing to measure\n", path);
        return 0;
    }
    int version = 0;
    nccl.GetVersion(&version);
    unsigned *gate;
    CK(cudaHostAlloc(reinterpret_cast<void **>(&gate), 8, cudaHostAllocMapped | cudaHostAllocPortable));
    printf("all-gather of %zu bytes a rank, NCCL %d.%d.%d; us on the slowest device, median of 200 reps, spread = IQR/median\n",
           kPartBytes, version / 10000, version / 100 % 100, version % 100);
    printf("gpus  pattern        median    spread\n");
    std::vector<int> counts{2};
    if (count > 2) counts.push_back(count);
    for (int g : counts) {
        Bench b(g, gate);
        print(g, "empty", b.gated([&] { b.empty(); }, false));
        print(g, "group", b.gated([&] { b.group(); }, false));
        b.clear();
        print(g, "group+fold", b.gated([&] { b.group_fold(); }, false));
        const bool folded = b.check();
        b.capture();
        b.clear();
        print(g, "graph", b.gated([&] { b.graph(); }, false));
        const bool replayed = b.check();
        print(g, "legacy", b.gated([&] { b.legacy(nullptr); }, true));
        print(g, "ungated", b.ungated());
        if (!folded || !replayed) {
            printf("bench_combine: the fold on device 0 is wrong (%s)\n", folded ? "graph" : "group+fold");
            return 1;
        }
    }
    CK(cudaFreeHost(gate));
    return 0;
}
