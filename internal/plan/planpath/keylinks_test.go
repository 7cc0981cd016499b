package planpath

import "testing"

func TestSplitKeyLinkRef(t *testing.T) {
	for _, tt := range []struct{ ref, file, symbol string }{
		{"src/app.js (handleSubmit)", "src/app.js", "handleSubmit"},
		{"api.ts#fetchUser", "api.ts", "fetchUser"},
		{"src/lib/db.ts:getUser", "src/lib/db.ts", "getUser"},
		{"src/lib/db.ts::getUser()", "src/lib/db.ts", "getUser"},
		{"src/app.js(handleSubmit)", "src/app.js", "handleSubmit"},
		{"handleSubmit() in src/app.js", "src/app.js", "handleSubmit"},
		{"`src/components/Form.tsx` (onSubmit handler)", "src/components/Form.tsx", "onSubmit"},
		{"src/app.ts (main entry)", "src/app.ts", ""},
		{"src/app.ts:42", "src/app.ts", ""},
		{"app/(auth)/login/page.tsx", "app/(auth)/login/page.tsx", ""},
		{"src/store.ts → useCart.addItem", "src/store.ts", "useCart.addItem"},
		{"Dockerfile", "Dockerfile", ""},
		{".env", ".env", ""},
		{"/Users/me/proj/src/a.ts", "/Users/me/proj/src/a.ts", ""},
		{"../other/x.go (Run)", "../other/x.go", "Run"},
		{`C:\work\x.ts:main`, `C:\work\x.ts`, "main"},
		// No file: prose, code and routes are not paths.
		{"trackEvent mutation", "", ""},
		{"dailyViewsAggregate.insert()", "", ""},
		{"router.push", "", ""},
		{"POST /api/users", "", ""},
		{"/api/auth/login", "", ""},
		{"/auth/.well-known/jwks.json", "", ""},
		{"/home/dev/app/src/a.ts (run)", "/home/dev/app/src/a.ts", "run"},
		{"https://api.example.com/v1", "", ""},
		{"", "", ""},
	} {
		file, sym := SplitKeyLinkRef(tt.ref)
		if file != tt.file || sym != tt.symbol {
			t.Errorf("SplitKeyLinkRef(%q) = %q, %q; want %q, %q", tt.ref, file, sym, tt.file, tt.symbol)
		}
	}
}
