package db

// SealRecordForTest re-encodes an edited document record (JSON without its
// digest member) with a valid digest, as a writer would have stored it:
// tests use it to store records that are wrong in content but intact.
func SealRecordForTest(key, body []byte) ([]byte, error) {
	d, err := decodeRecord(key, body)
	if err != nil {
		return nil, err
	}
	return d.encode(), nil
}
