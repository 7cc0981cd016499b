package roleplan

func short(sha string) string { return sha[:min(len(sha), 7)] }
