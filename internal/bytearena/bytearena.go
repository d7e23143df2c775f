// Package bytearena hands out copies of small byte slices cut from large
// blocks, so that a reader that keeps what it reads (events, records)
// costs one allocation per block instead of one per item.
package bytearena

import "bytes"

// Block is the size of the blocks copies are cut from. A copy larger than
// an eighth of it gets an allocation of its own.
const Block = 64 << 10

// Arena is a source of copies. Its zero value is ready to use. A block
// stays in memory while any copy cut from it is referenced.
type Arena struct{ block []byte }

// Copy returns a copy of b. Its capacity is its length, so appending to
// it never writes into another copy.
func (a *Arena) Copy(b []byte) []byte {
	if len(b) > Block/8 {
		return bytes.Clone(b)
	}
	if cap(a.block)-len(a.block) < len(b) {
		a.block = make([]byte, 0, Block)
	}
	start := len(a.block)
	a.block = append(a.block, b...)
	return a.block[start:len(a.block):len(a.block)]
}
