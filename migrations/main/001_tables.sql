-- Raw tables keep the CSV text exactly, so the seeds' text queries (LIKE '%"available": true%',
-- = 'TRUE') work unchanged. An empty cell is NULL, as the seeds' read_csv gives it, so json_extract
-- never sees ''; only the columns schema/ marks required are NOT NULL. The typed relations derived
-- from them are 003's.
--
-- Label columns (schema/: Column.Label) compare without case, so category = 'Cafe' finds the cafes.
-- Only the comparison changes: the stored text stays byte for byte what the CSV holds, and every
-- relation that reads such a column inherits its collation.
CREATE TABLE ctool_meta.sources (
    dataset     VARCHAR NOT NULL,
    source_file VARCHAR NOT NULL,
    sha256      VARCHAR NOT NULL,
    row_count   BIGINT NOT NULL,
    ingested_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (dataset, source_file)
);

-- The cells validation could not type (a warning unless --strict): each stays as written in its table,
-- and its typed value is NULL, unknown. row_index is the row's place in its table, from 0; ctool status
-- counts them.
CREATE TABLE ctool_meta.unknown_cells (
    dataset     VARCHAR NOT NULL,
    source_file VARCHAR NOT NULL,
    line        BIGINT NOT NULL,
    column_name VARCHAR NOT NULL,
    rule        VARCHAR NOT NULL,
    row_index   BIGINT NOT NULL
);

CREATE TABLE ctool_meta.build (
    key   VARCHAR PRIMARY KEY,
    value VARCHAR NOT NULL
);

CREATE TABLE events (
    event_name            VARCHAR NOT NULL,
    description           VARCHAR,
    date_time             VARCHAR NOT NULL,
    location              VARCHAR,
    capacity              VARCHAR,
    source_url            VARCHAR,
    extracted_at          VARCHAR,
    additional_info       VARCHAR,
    contact_info          VARCHAR,
    cost                  VARCHAR,
    registration_required VARCHAR,
    target_audience       VARCHAR
);

CREATE TABLE stores (
    store_id                    VARCHAR NOT NULL PRIMARY KEY,
    store_name                  VARCHAR NOT NULL,
    description                 VARCHAR,
    category                    VARCHAR COLLATE NOCASE NOT NULL,
    opening_hours               VARCHAR,
    irregular_closures          VARCHAR,
    phone                       VARCHAR,
    email                       VARCHAR,
    address                     VARCHAR,
    Biz_Entertainment_Available VARCHAR,
    private_room                VARCHAR,
    pets_allowed                VARCHAR,
    target_audience             VARCHAR,
    store_exclusive_events      VARCHAR,
    menu                        VARCHAR,
    seasonal_items              VARCHAR,
    allergy_info                VARCHAR,
    gluten_free_info            VARCHAR,
    vegan_info                  VARCHAR,
    kids_info                   VARCHAR,
    halal_info                  VARCHAR,
    reservations                VARCHAR,
    restroom_info               VARCHAR,
    accessibility               VARCHAR,
    parking                     VARCHAR,
    nursing_room                VARCHAR,
    access_route                VARCHAR,
    extraction_status           VARCHAR COLLATE NOCASE NOT NULL,
    error_message               VARCHAR
);

CREATE TABLE products (
    store_id            VARCHAR NOT NULL,
    store_name          VARCHAR NOT NULL,
    product_name        VARCHAR NOT NULL,
    product_description VARCHAR,
    tag                 VARCHAR COLLATE NOCASE
);
