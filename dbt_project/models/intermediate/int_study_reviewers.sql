-- One row per (study, source, reviewer configuration): which reviewers' answers a study counts and
-- how many samples of each. External systems come with samples = null (all imported reviews);
-- reviewer_config '*' stands for every imported system. is_reading_visible: the configuration reads the
-- manuscript without the text ingest flagged hidden (null: resolved before that was recorded).
with

studies as (

    select * from {{ ref('int_studies_latest') }}

),

own as (

    select
        study_id,
        'peerlake' as source,
        -- recursive unnest spreads each {reviewer_config, samples, strip_hidden} into three columns
        unnest(  -- noqa: AL03
            from_json(
                reviewers, '[{"reviewer_config": "VARCHAR", "samples": "INTEGER", "strip_hidden": "BOOLEAN"}]'
            ),
            recursive := true
        )

    from studies

),

external as (

    select
        study_id,
        'external' as source,
        unnest(from_json(external_systems, '["VARCHAR"]')) as reviewer_config

    from studies

),

final as (

    select distinct
        own.study_id,
        own.source,
        own.reviewer_config,
        own.samples,
        own.strip_hidden as is_reading_visible
    from own
    union all by name
    select distinct
        study_id,
        source,
        reviewer_config,
        cast(null as integer) as samples
    from external

)

select
    study_id || '|' || source || '|' || reviewer_config as study_reviewer_id,
    study_id,
    source,
    reviewer_config,
    -- a configuration resolved twice with different sample counts counts the larger set
    max(samples) as samples,
    bool_or(is_reading_visible) as is_reading_visible
from final
group by all
