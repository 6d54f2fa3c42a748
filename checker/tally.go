package checker

import "errors"

// tallyReader reads a Tallier model's counts for an engine: each take returns what the model
// counted since the last one. The single-process engine takes before each segment (and
// drops a dropped segment's); a part of a partitioned search after each piece it expands,
// for the coordinator to add up through the level's stop; the coordinator once more when
// the search ends (its trace's replay, on its own model).
type tallyReader struct {
	m    Tallier
	last []uint64 // the model's counts at the last take
	buf  []uint64
}

// newTallyReader starts reading m's counts from now on; nil when m counts nothing in this
// search.
func newTallyReader(m any) *tallyReader {
	t, ok := m.(Tallier)
	if !ok {
		return nil
	}
	last := t.Tallies(nil)
	if last == nil {
		return nil
	}
	return &tallyReader{m: t, last: last}
}

// take returns the counts since the last take.
func (s *tallyReader) take() []uint64 {
	s.buf = s.m.Tallies(s.buf[:0])
	d := make([]uint64, len(s.buf))
	for i, v := range s.buf {
		if i < len(s.last) {
			d[i] = v - s.last[i]
		}
	}
	s.last = append(s.last[:0], s.buf...)
	return d
}

// addTallies adds d to sum (grown to d's length) and returns it.
func addTallies(sum, d []uint64) []uint64 {
	for len(sum) < len(d) {
		sum = append(sum, 0)
	}
	for i, v := range d {
		sum[i] += v
	}
	return sum
}

// countPart counts a part made of b: a model that counts events of its own (Tallier) must
// be a part's alone, since each part sends what its model counted in each piece it expanded
// (two parts of one process give two bounds of two models: specs' Kafka runnable does).
func (b *bound[S]) countPart() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.parts++
	if t, ok := any(b.m).(Tallier); ok && b.parts > 1 && t.Tallies(nil) != nil {
		return errors.New("partitioned search: two parts on one model that counts events of its own (checker.Tallier): give each part a model of its own")
	}
	return nil
}
