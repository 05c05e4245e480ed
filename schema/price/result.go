package price

// result decides: which amounts are money, which of those are prices, and which prices remain.
func (r *priceReader) result() Price {
	r.sentence()
	if r.askAny && !r.content {
		r.unread = true // "お問い合わせください", "店頭にて": all it says
	}
	switch f := r.amts[0].flags; {
	case r.n == 0:
		return Price{Unread: r.unread}
	case r.n == 1 && f&pfYen != 0 && f&(pfRefused|pfNot) == 0:
		y := r.amts[0].yen
		return Price{Low: y, High: y, OK: true, Unread: r.unread}
	}
	a := r.amts[:r.n]
	// A range or a list shares one currency: from the right ("1,000〜2,000円", "1〜2万円"), then
	// from the left ("¥1,000-2,000").
	for i := len(a) - 2; i >= 0; i-- {
		if a[i].flags&pfLinked != 0 {
			r.inherit(&a[i], &a[i+1], true)
		}
	}
	for i := 0; i+1 < len(a); i++ {
		if a[i].flags&pfLinked != 0 {
			r.inherit(&a[i+1], &a[i], false)
		}
	}
	var prices [maxPriceAmounts]int8
	np := 0
	for i := range a {
		switch f := a[i].flags; {
		case f&pfYen == 0:
		case f&pfRefused != 0:
			r.unread = true
		case f&pfNot == 0:
			prices[np] = int8(i)
			np++
		}
	}
	p := prices[:np]
	// A pre-tax price beside its tax-included one gives way: marked so, or unmarked and next to it.
	var drop [maxPriceAmounts]bool
	for k, i := range p {
		x := a[i]
		switch {
		case x.flags&pfOut != 0:
			for l, j := range p {
				y := a[j]
				near := l == k-1 || l == k+1
				if y.flags&pfOut == 0 && (y.flags&pfIn != 0 || near) && taxed(x.yen, y.yen) {
					drop[k] = true
				}
			}
		case x.flags&pfIn == 0:
			for _, l := range []int{k - 1, k + 1} {
				if l >= 0 && l < len(p) {
					y := a[p[l]]
					if y.flags&pfIn != 0 && y.part == x.part && taxed(x.yen, y.yen) {
						drop[k] = true
					}
				}
			}
		}
	}
	primary := false
	for k, i := range p {
		primary = primary || !drop[k] && a[i].flags&pfAside == 0
	}
	out := Price{Unread: r.unread}
	for k, i := range p {
		if drop[k] || primary && a[i].flags&pfAside != 0 {
			continue
		}
		y := a[i].yen
		if !out.OK || y < out.Low {
			out.Low = y
		}
		if !out.OK || y > out.High {
			out.High = y
		}
		out.OK = true
	}
	return out
}

// inherit gives to the currency of from, which a range or list sign joins it to, if to is a number
// of like size that no unit follows ("1個200円、3個500円" gives 3 nothing). A number left of one
// scaled by 万 or 千, or of whole thousands, is scaled alike: "1〜2万円", "3〜5千円", "2〜3,000円".
func (r *priceReader) inherit(to, from *priceAmount, left bool) {
	if to.flags&(pfYen|pfRefused) != 0 || from.flags&pfYen == 0 || from.flags&pfRefused != 0 {
		return
	}
	y, f := int64(to.yen), int64(from.yen)
	// Left of the sign, the sign follows it; right of it, a word may: "¥800-1,200 per person".
	if end := int(to.end); !left && !bareAfter(r.s, end) && (y < 100 || end >= len(r.s) || r.s[end] != ' ') {
		return
	}
	if left && to.flags&(pfMan|pfSen) == 0 {
		switch {
		case from.flags&pfMan != 0 && y*10000 <= f:
			y *= 10000
		case (from.flags&pfSen != 0 || f%1000 == 0 && y < 100) && y*1000 <= f:
			y *= 1000
		}
	}
	if max(y, f) > min(y, f)*100 {
		return // "2〜500円": a count and a price, not a range
	}
	to.yen = int32(y)
	to.flags |= pfYen | from.flags&(pfIn|pfOut|pfNot|pfAside)
}

// taxed reports whether in is pre with consumption tax added: 5 to 10 per cent, rounded either way.
func taxed(pre, in int32) bool {
	p, t := int64(pre), int64(in)
	return t > p && 100*t >= 105*p-100 && 100*t <= 110*p+100
}
