package config

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkParse decodes each config fixture: hive's own and GSD's other versions.
func BenchmarkParse(b *testing.B) {
	for _, name := range []string{"hive.json", "gsd-seed-4.2.json", "gsd-other-version.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Parse reads one config file's content over the defaults (the tests'
// way in; hive reads files with Load). Errors are *jsonfile.Error values
// (several joined when there are several bad values).
func Parse(data []byte) (*Config, error) {
	c := Default()
	if err := c.overlay("", data); err != nil {
		return nil, err
	}
	return c, nil
}
