package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hivectl/hive/internal/config/jsonfile"
)

// Validate checks the values a program may have changed since Parse, with
// the same rules Parse applies to a file. Errors are *jsonfile.Error values.
func (c *Config) Validate() error {
	var errs []error
	validate("", c, &errs)
	return errors.Join(errs...)
}

func validate(path string, o object, errs *[]error) {
	for _, f := range o.fields() {
		p := jsonfile.Join(path, f.key)
		if f.valid != nil && !f.valid() {
			raw, _ := json.Marshal(valueOf(f.ptr))
			*errs = append(*errs, &jsonfile.Error{Key: p, Msg: fmt.Sprintf("%s is not allowed; use %s", jsonfile.Show(raw), accepts(f))})
		}
		switch v := f.ptr.(type) {
		case *map[string]ModelSpec:
			for _, role := range slices.Sorted(maps.Keys(*v)) {
				spec := (*v)[role]
				validate(jsonfile.Join(p, role), &spec, errs)
			}
		case *map[string]Price:
			for _, model := range slices.Sorted(maps.Keys(*v)) {
				price := (*v)[model]
				validate(jsonfile.Join(p, model), &price, errs)
			}
		case object:
			validate(p, v, errs)
		}
	}
}

// Marshal renders c as a config file: every known key in the seed's order,
// then hive's keys, then the keys hive did not know, sorted, at every level,
// indented by two spaces. Legacy top-level keys are written in their nested
// place. It fails when a value is not allowed, so that hive never writes a
// file it would refuse to read.
func (c *Config) Marshal() ([]byte, error) { return c.marshal(false) }

// MarshalHive is Marshal without GSD's own keys, which hive keeps in a
// file but never reads (mode, gates.confirm_plan, ...): the file hive init
// writes for a new project holds only what changes what hive does.
func (c *Config) MarshalHive() ([]byte, error) { return c.marshal(true) }

func (c *Config) marshal(hiveOnly bool) ([]byte, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("marshal config: %w", err)
	}
	var flat bytes.Buffer
	if err := writeObject(&flat, c, hiveOnly); err != nil {
		return nil, fmt.Errorf("marshal config: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, flat.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("marshal config: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// writeObject writes o as compact JSON; Marshal indents the whole at the end.
// hiveOnly leaves out GSD's own keys.
func writeObject(b *bytes.Buffer, o object, hiveOnly bool) error {
	b.WriteByte('{')
	first := true
	member := func(key string) error {
		if !first {
			b.WriteByte(',')
		}
		first = false
		if err := jsonfile.Encode(b, key); err != nil {
			return err
		}
		b.WriteByte(':')
		return nil
	}
	for _, f := range o.fields() {
		if f.omitUnset && unset(f.ptr) || hiveOnly && f.gsd {
			continue
		}
		if err := member(f.key); err != nil {
			return err
		}
		if err := writeValue(b, f.ptr, hiveOnly); err != nil {
			return fmt.Errorf("%s: %w", f.key, err)
		}
	}
	extra := *o.unknown()
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		if err := member(k); err != nil {
			return err
		}
		b.Write(extra[k])
	}
	b.WriteByte('}')
	return nil
}

func writeValue(b *bytes.Buffer, ptr any, hiveOnly bool) error {
	switch p := ptr.(type) {
	case *time.Duration:
		return jsonfile.Encode(b, jsonfile.ShortDuration(*p))
	case *[]string:
		if *p == nil { // an unset list is an empty one, never null
			b.WriteString("[]")
			return nil
		}
		return jsonfile.Encode(b, *p)
	case *map[string]ModelSpec:
		return writeObjects(b, *p, hiveOnly)
	case *map[string]Price:
		return writeObjects(b, *p, hiveOnly)
	case object:
		return writeObject(b, p, hiveOnly)
	}
	return jsonfile.Encode(b, valueOf(ptr))
}

// writeObjects writes an object of named objects: "default" first (the
// models entry the others build on), then by name.
func writeObjects[T any, PT interface {
	*T
	object
}](b *bytes.Buffer, m map[string]T, hiveOnly bool) error {
	names := slices.SortedFunc(maps.Keys(m), func(x, y string) int {
		switch {
		case x == y:
			return 0
		case x == DefaultRole:
			return -1
		case y == DefaultRole:
			return 1
		}
		return strings.Compare(x, y)
	})
	b.WriteByte('{')
	for i, name := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := jsonfile.Encode(b, name); err != nil {
			return err
		}
		b.WriteByte(':')
		v := m[name]
		if err := writeObject(b, PT(&v), hiveOnly); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	b.WriteByte('}')
	return nil
}

// valueOf dereferences a field pointer for encoding.
func valueOf(ptr any) any {
	switch p := ptr.(type) {
	case *bool:
		return *p
	case *string:
		return *p
	case *int:
		return *p
	case *float64:
		return *p
	case *time.Duration:
		return jsonfile.ShortDuration(*p)
	case *[]string:
		return *p
	case *map[string]string:
		return *p
	}
	return ptr
}
