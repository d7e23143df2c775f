package words

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCount(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{
		{0, "0 entries"},
		{1, "1 entry"},
		{2, "2 entries"},
		{-1, "-1 entry"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Count(tt.n, "entry", "entries"))
	}
}
