package words

import (
	"strings"

	"github.com/azabudai/ctool/schema"
)

// Column labels: the short name a page shows for a column, in its language. The Japanese one is the
// schema's description up to its first parenthesis or full stop ("店舗名", "ビジネス・接待利用可否"),
// the table column's description before a view's (the view's says how it reads the cell: "…なら
// true"); jaLabels gives those the rule cannot. schema/ describes in Japanese only, so the English
// labels are kept here. A key is "dataset.column" where a name means something else in one dataset
// (events' store_id is the venue's), else the column's name. TestColumnLabels holds every column of
// every list to a label in both languages, and every entry here to a column.

// jaLabels are the Japanese labels the description rule does not give well.
var jaLabels = map[string]string{
	"is_free":             "無料",
	"hours_known":         "営業時間が判明",
	"weekdays":            "開催曜日",
	"vegan_caveat":        "ヴィーガン対応の条件",
	"halal_caveat":        "ハラール対応の条件",
	"gluten_free_caveat":  "グルテンフリー対応の条件",
	"wheelchair_caveat":   "車椅子利用の条件",
	"nursing_room_caveat": "授乳室の条件",
	"price_yen":           "価格（円）",
	"price_max_yen":       "最高価格（円）",
}

// enLabels are the English labels.
var enLabels = map[string]string{
	// stores
	"store_id":                    "Store ID",
	"store_name":                  "Store name",
	"description":                 "Description",
	"category":                    "Category",
	"opening_hours":               "Opening hours",
	"irregular_closures":          "Closures",
	"phone":                       "Phone",
	"email":                       "Email",
	"address":                     "Address",
	"Biz_Entertainment_Available": "Business & entertaining",
	"private_room":                "Private room",
	"pets_allowed":                "Pets allowed",
	"target_audience":             "Audience",
	"store_exclusive_events":      "Store's own events",
	"menu":                        "Menu",
	"seasonal_items":              "Seasonal items",
	"allergy_info":                "Allergy information",
	"gluten_free_info":            "Gluten-free information",
	"vegan_info":                  "Vegan information",
	"kids_info":                   "For children",
	"halal_info":                  "Halal information",
	"reservations":                "Reservations",
	"restroom_info":               "Restrooms",
	"accessibility":               "Accessibility",
	"parking":                     "Parking",
	"nursing_room":                "Nursing room",
	"access_route":                "Access",
	"extraction_status":           "Extraction status",
	"error_message":               "Extraction error",
	"parking_available":           "Parking available",
	"parking_capacity":            "Parking spaces",
	"private_room_available":      "Private room available",
	"private_room_capacity":       "Private room seats",
	"kids_menu":                   "Kids' menu",
	"highchair":                   "High chair",
	"diaper_changing":             "Diaper changing",
	"hours_known":                 "Hours known",
	"vegan_available":             "Vegan",
	"halal_available":             "Halal",
	"gluten_free_available":       "Gluten-free",
	"wheelchair_accessible":       "Wheelchair access",
	"nursing_room_available":      "Nursing room available",
	"vegan_caveat":                "Vegan: conditions",
	"halal_caveat":                "Halal: conditions",
	"gluten_free_caveat":          "Gluten-free: conditions",
	"wheelchair_caveat":           "Wheelchair: conditions",
	"nursing_room_caveat":         "Nursing room: conditions",
	// events
	"event_name":            "Event",
	"date_time":             "Dates",
	"location":              "Location",
	"capacity":              "Capacity",
	"source_url":            "Source URL",
	"extracted_at":          "Extracted at",
	"additional_info":       "Additional information",
	"contact_info":          "Contact",
	"cost":                  "Cost",
	"registration_required": "Registration required",
	"start_date":            "Starts",
	"end_date":              "Ends",
	"venue":                 "Venue",
	"events.address":        "Venue address",
	"is_free":               "Free",
	"events.store_id":       "Venue's store ID",
	"events.store_name":     "Venue's store",
	"weekdays":              "Weekdays",
	// products
	"products.store_name": "Store",
	"product_name":        "Product",
	"product_description": "Description",
	"tag":                 "Tag",
	"price_yen":           "Price (yen)",
	"price_max_yen":       "Highest price (yen)",
}

// ColumnLabels are a column's labels, Japanese and English; "" where none is known (the test says
// which).
func ColumnLabels(dataset string, c schema.RelationColumn) (ja, en string) {
	desc := ""
	if c.Base != nil {
		desc = c.Base.Description
	} else if c.View != nil {
		desc = c.View.Description
	}
	ja = lookupLabel(jaLabels, dataset, c.Name)
	if ja == "" {
		ja = shortLabel(desc)
	}
	return ja, lookupLabel(enLabels, dataset, c.Name)
}

func lookupLabel(m map[string]string, dataset, name string) string {
	if l, ok := m[dataset+"."+name]; ok {
		return l
	}
	return m[name]
}

// shortLabel is a description up to its first parenthesis, full stop or comma: "カテゴリ（\"retail\",
// …）" is "カテゴリ".
func shortLabel(desc string) string {
	if i := strings.IndexAny(desc, "（(。、:："); i >= 0 {
		desc = desc[:i]
	}
	return strings.TrimSpace(desc)
}
