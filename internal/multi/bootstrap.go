package multi

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"time"
)

// Bootstrap hands rank 0's id (NCCL's unique id) to every rank over TCP, as torchrun's rendezvous
// does: rank 0 listens on addr, and answers each of the other nranks-1 ranks, which send their
// rank, with the id; the others dial addr (retrying until it listens) and read it. Every rank
// returns the id; wait bounds the whole exchange.
func Bootstrap(addr string, rank, nranks int, id []byte, size int, wait time.Duration) ([]byte, error) {
	if nranks < 1 || rank < 0 || rank >= nranks {
		return nil, fmt.Errorf("rank %d of %d", rank, nranks)
	}
	deadline := time.Now().Add(wait)
	if rank == 0 {
		if len(id) != size {
			return nil, fmt.Errorf("an id of %d bytes, not %d", len(id), size)
		}
		if nranks == 1 {
			return id, nil
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("-coordinator %s: %v", addr, err)
		}
		defer ln.Close()
		ln.(*net.TCPListener).SetDeadline(deadline)
		seen := map[uint32]bool{}
		for len(seen) < nranks-1 {
			conn, err := ln.Accept()
			if err != nil {
				return nil, fmt.Errorf("-coordinator %s: %d of %d ranks came: %v", addr, len(seen)+1, nranks, err)
			}
			conn.SetDeadline(deadline)
			var r [4]byte
			_, err = io.ReadFull(conn, r[:])
			k := binary.LittleEndian.Uint32(r[:])
			if err == nil && (k == 0 || int(k) >= nranks || seen[k]) {
				err = fmt.Errorf("a rank %d (ranks 1 to %d, each once)", k, nranks-1)
			}
			if err == nil {
				_, err = conn.Write(id)
			}
			conn.Close()
			if err != nil {
				return nil, fmt.Errorf("-coordinator %s: %v", addr, err)
			}
			seen[k] = true
		}
		return id, nil
	}
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Until(deadline))
		if err != nil {
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("-coordinator %s: rank 0 did not answer in %v: %v", addr, wait, err)
			}
			time.Sleep(100 * time.Millisecond)
			continue
		}
		defer conn.Close()
		conn.SetDeadline(deadline)
		var r [4]byte
		binary.LittleEndian.PutUint32(r[:], uint32(rank))
		got := make([]byte, size)
		if _, err = conn.Write(r[:]); err == nil {
			_, err = io.ReadFull(conn, got)
		}
		if err != nil {
			return nil, fmt.Errorf("-coordinator %s: reading the id: %v", addr, err)
		}
		return got, nil
	}
}
