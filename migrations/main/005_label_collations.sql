-- Label columns (schema/: Column.Label) compare without case, so category = 'Cafe' finds the cafes.
-- Only the comparison changes: the stored text stays byte for byte what the CSV holds. Views read the
-- table's columns, so they inherit the collation; store_hours.day is NOCASE in its own definition.
ALTER TABLE stores ALTER category SET DATA TYPE VARCHAR COLLATE NOCASE;
ALTER TABLE stores ALTER extraction_status SET DATA TYPE VARCHAR COLLATE NOCASE;
ALTER TABLE products ALTER tag SET DATA TYPE VARCHAR COLLATE NOCASE;
