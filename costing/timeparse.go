package costing

import (
	"errors"
	"strings"
	"time"
)

// ErrTime reports a timestamp that none of the accepted layouts match.
var ErrTime = errors.New("costing: not a timestamp")

// ParseTime reads a billing timestamp and returns it in UTC. Billing files
// mix styles, even within one file, so it accepts:
//
//	2024-09-18T22:00:00Z            FOCUS, AWS bill/* columns
//	2024-09-18 22:00:00             FOCUS sample, AWS lineItem/UsageStartDate (no zone: UTC)
//	2022-08-01 03:00:00+00:00       GCP exports flattened by pandas
//	2020-11-10 05:49:32.199000+00:00
//	2020-11-09 23:00:00 UTC         BigQuery CSV export
//	2024-09-01T00:00:00.0000000Z    any number of fraction digits; ±hh:mm, ±hhmm, ±hh offsets
//	2023-09-22                      date only: midnight UTC
//	09/22/2023, 9/2/2023            Azure cost details: month first, always
//	09/22/2023 14:00[:00] [AM|PM]
//
// A timestamp without a zone is taken as UTC, as every billing format
// documents. Day-first dates (22/09/2023) are not recognised: a day above
// 12 in the first position is an error, but a day-first date with both
// fields at most 12 is read month first, so localised exports must be
// converted before reading.
func ParseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if len(s) >= 3 && (s[1] == '/' || s[2] == '/') {
		return parseUSDate(s)
	}
	return parseISO(s)
}

// num reads exactly n digits from s at i.
func num(s string, i, n int) (int, bool) {
	if i+n > len(s) {
		return 0, false
	}
	v := 0
	for _, c := range []byte(s[i : i+n]) {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

// num12 reads one or two digits from s at i and returns the value and the
// index after them.
func num12(s string, i int) (int, int, bool) {
	if i >= len(s) || s[i] < '0' || s[i] > '9' {
		return 0, i, false
	}
	v := int(s[i] - '0')
	i++
	if i < len(s) && s[i] >= '0' && s[i] <= '9' {
		v = v*10 + int(s[i]-'0')
		i++
	}
	return v, i, true
}

// mkTime builds a UTC time and rejects fields that time.Date would
// normalise (February 30, hour 25).
func mkTime(y, mo, d, h, mi, sec, ns int) (time.Time, error) {
	if mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59 {
		return time.Time{}, ErrTime
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, ns, time.UTC)
	if t.Day() != d {
		return time.Time{}, ErrTime
	}
	return t, nil
}

func parseISO(s string) (time.Time, error) {
	y, ok1 := num(s, 0, 4)
	mo, ok2 := num(s, 5, 2)
	d, ok3 := num(s, 8, 2)
	if !ok1 || !ok2 || !ok3 || s[4] != '-' || s[7] != '-' {
		return time.Time{}, ErrTime
	}
	if len(s) == 10 {
		return mkTime(y, mo, d, 0, 0, 0, 0)
	}
	if s[10] != 'T' && s[10] != 't' && s[10] != ' ' {
		return time.Time{}, ErrTime
	}
	i := 11
	h, ok1 := num(s, i, 2)
	mi, ok2 := num(s, i+3, 2)
	if !ok1 || !ok2 || s[i+2] != ':' {
		return time.Time{}, ErrTime
	}
	i += 5
	sec, ns := 0, 0
	if i < len(s) && s[i] == ':' {
		var ok bool
		if sec, ok = num(s, i+1, 2); !ok {
			return time.Time{}, ErrTime
		}
		i += 3
		if i < len(s) && (s[i] == '.' || s[i] == ',') {
			i++
			n := 0
			scale := 100000000
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				ns += int(s[i]-'0') * scale
				scale /= 10
				i++
				n++
			}
			if n == 0 {
				return time.Time{}, ErrTime
			}
		}
	}
	t, err := mkTime(y, mo, d, h, mi, sec, ns)
	if err != nil {
		return t, err
	}
	off, err := parseZone(s[i:])
	if err != nil {
		return time.Time{}, err
	}
	return t.Add(-off), nil
}

// parseZone reads what follows the clock: nothing, Z, UTC or a numeric
// offset, and returns the offset east of UTC.
func parseZone(z string) (time.Duration, error) {
	z = strings.TrimSpace(z)
	switch z {
	case "", "Z", "z", "UTC", "GMT":
		return 0, nil
	}
	if z[0] != '+' && z[0] != '-' {
		return 0, ErrTime
	}
	sign := time.Duration(1)
	if z[0] == '-' {
		sign = -1
	}
	z = z[1:]
	hh, ok := num(z, 0, 2)
	if !ok {
		return 0, ErrTime
	}
	mm := 0
	switch {
	case len(z) == 2:
	case len(z) == 4:
		mm, ok = num(z, 2, 2)
	case len(z) == 5 && z[2] == ':':
		mm, ok = num(z, 3, 2)
	default:
		ok = false
	}
	if !ok || hh > 23 || mm > 59 {
		return 0, ErrTime
	}
	return sign * (time.Duration(hh)*time.Hour + time.Duration(mm)*time.Minute), nil
}

func parseUSDate(s string) (time.Time, error) {
	mo, i, ok := num12(s, 0)
	if !ok || i >= len(s) || s[i] != '/' {
		return time.Time{}, ErrTime
	}
	d, i, ok := num12(s, i+1)
	if !ok || i >= len(s) || s[i] != '/' {
		return time.Time{}, ErrTime
	}
	y, ok := num(s, i+1, 4)
	if !ok {
		return time.Time{}, ErrTime
	}
	i += 5
	rest := strings.TrimSpace(s[i:])
	if rest == "" {
		return mkTime(y, mo, d, 0, 0, 0, 0)
	}
	if i >= len(s) || s[i] != ' ' {
		return time.Time{}, ErrTime
	}
	h, j, ok := num12(rest, 0)
	if !ok || j >= len(rest) || rest[j] != ':' {
		return time.Time{}, ErrTime
	}
	mi, ok := num(rest, j+1, 2)
	if !ok {
		return time.Time{}, ErrTime
	}
	j += 3
	sec := 0
	if j < len(rest) && rest[j] == ':' {
		if sec, ok = num(rest, j+1, 2); !ok {
			return time.Time{}, ErrTime
		}
		j += 3
	}
	switch ampm := strings.ToUpper(strings.TrimSpace(rest[j:])); ampm {
	case "":
	case "AM", "PM":
		if h < 1 || h > 12 {
			return time.Time{}, ErrTime
		}
		h %= 12
		if ampm == "PM" {
			h += 12
		}
	default:
		return time.Time{}, ErrTime
	}
	return mkTime(y, mo, d, h, mi, sec, 0)
}
