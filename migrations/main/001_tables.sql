-- Raw tables keep the CSV text exactly (empty cells are '', never NULL), so the seeds' text queries
-- (LIKE '%"available": true%', = 'TRUE') work unchanged. Typed views sit beside them.
CREATE TABLE ctool_meta.sources (
    dataset     VARCHAR NOT NULL,
    source_file VARCHAR NOT NULL,
    sha256      VARCHAR NOT NULL,
    row_count   BIGINT NOT NULL,
    ingested_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (dataset, source_file)
);

CREATE TABLE ctool_meta.build (
    key   VARCHAR PRIMARY KEY,
    value VARCHAR NOT NULL
);

CREATE TABLE events (
    event_name            VARCHAR NOT NULL,
    description           VARCHAR NOT NULL,
    date_time             VARCHAR NOT NULL,
    location              VARCHAR NOT NULL,
    capacity              VARCHAR NOT NULL,
    source_url            VARCHAR NOT NULL,
    extracted_at          VARCHAR NOT NULL,
    additional_info       VARCHAR NOT NULL,
    contact_info          VARCHAR NOT NULL,
    cost                  VARCHAR NOT NULL,
    registration_required VARCHAR NOT NULL,
    target_audience       VARCHAR NOT NULL
);

CREATE TABLE stores (
    store_id                    VARCHAR NOT NULL PRIMARY KEY,
    store_name                  VARCHAR NOT NULL,
    description                 VARCHAR NOT NULL,
    category                    VARCHAR NOT NULL,
    opening_hours               VARCHAR NOT NULL,
    irregular_closures          VARCHAR NOT NULL,
    phone                       VARCHAR NOT NULL,
    email                       VARCHAR NOT NULL,
    address                     VARCHAR NOT NULL,
    Biz_Entertainment_Available VARCHAR NOT NULL,
    private_room                VARCHAR NOT NULL,
    pets_allowed                VARCHAR NOT NULL,
    target_audience             VARCHAR NOT NULL,
    store_exclusive_events      VARCHAR NOT NULL,
    menu                        VARCHAR NOT NULL,
    seasonal_items              VARCHAR NOT NULL,
    allergy_info                VARCHAR NOT NULL,
    gluten_free_info            VARCHAR NOT NULL,
    vegan_info                  VARCHAR NOT NULL,
    kids_info                   VARCHAR NOT NULL,
    halal_info                  VARCHAR NOT NULL,
    reservations                VARCHAR NOT NULL,
    restroom_info               VARCHAR NOT NULL,
    accessibility               VARCHAR NOT NULL,
    parking                     VARCHAR NOT NULL,
    nursing_room                VARCHAR NOT NULL,
    access_route                VARCHAR NOT NULL,
    extraction_status           VARCHAR NOT NULL,
    error_message               VARCHAR NOT NULL
);

CREATE TABLE products (
    store_id            VARCHAR NOT NULL,
    store_name          VARCHAR NOT NULL,
    product_name        VARCHAR NOT NULL,
    product_description VARCHAR NOT NULL,
    tag                 VARCHAR NOT NULL
);
