-- One row per human span label a judge card compares a judge with: SubstanReview-style span
-- annotations (span_annotation_imported: the newest per review, dataset and annotator; role = the
-- label of dimension 'role'; Major_claim has no role and no row) and span labels imported with
-- `peerlake ingest labels` (reference_label_imported with start/end), and DISAPERE's sentences under
-- its label mapping (int_judge_card_human_labels, dimension role: claim | premise | none, and aspect on
-- prism-reference; the final dataset's row is the reference, and each person's row, the final
-- annotator's included, a rater). Offsets index the text the judge reads. annotator null = the reference
-- (adjudicated) label; the others feed the human ceiling. label_mapping(_sha256): the mapping that made
-- the label, null when none did.
-- Spans entered in the browser (`peerlake label`, datasets entered_*) are rows with their person, the study
-- they were entered in, the judge and the judged text's hash (null on the other rows): no reference, each
-- person's span is compared with the judge (depth, by offsets: int_judge_card_items) and with the other
-- people's spans (the ceiling, int_judge_card_annotator_items); item_id names the span's item (the same for
-- two people who chose the same offsets; human_span_id on the other rows) and judge_config the configuration
-- whose judgment the person labelled (its taxonomy is the aspects they chose from).
with

annotations as (

    select * from {{ ref('stg_events__span_annotations') }}
    qualify row_number() over (
        partition by review_key, dataset, coalesce(annotator, '')
        order by imported_at desc, span_annotation_id desc
    ) = 1

),

parsed as (

    select
        span_annotation_id,
        review_key,
        dataset,
        annotator,
        from_json(spans, '[{"role": "VARCHAR", "judged_start": "INTEGER", "judged_end": "INTEGER"}]') as span_list

    from annotations

),

annotation_spans as (

    select
        span_annotation_id,
        review_key,
        dataset,
        annotator,
        generate_subscripts(span_list, 1) - 1 as span_index,
        unnest(span_list, recursive := true)  -- noqa: AL03

    from parsed

),

from_annotations as (

    select
        concat_ws('|', span_annotation_id, span_index) as human_span_id,
        dataset,
        review_key,
        annotator,
        'role' as dimension,
        role as label,
        judged_start as span_start,
        judged_end as span_end,
        cast(null as varchar) as label_mapping,
        cast(null as varchar) as label_mapping_sha256,
        cast(null as varchar) as study_id,
        cast(null as varchar) as judge,
        cast(null as varchar) as text_sha256,
        cast(null as boolean) as is_judge_shown,
        cast(null as varchar) as item_id,
        cast(null as varchar) as judge_config

    from annotation_spans
    where role is not null and judged_start is not null and judged_end > judged_start

),

from_labels as (

    select
        reference_label_id as human_span_id,
        dataset,
        subject_key as review_key,
        label ->> 'annotator' as annotator,
        coalesce(label ->> 'dimension', 'role') as dimension,
        label ->> 'label' as label,
        cast(label ->> 'start' as integer) as span_start,
        cast(label ->> 'end' as integer) as span_end,
        cast(null as varchar) as label_mapping,
        cast(null as varchar) as label_mapping_sha256,
        cast(null as varchar) as study_id,
        cast(null as varchar) as judge,
        cast(null as varchar) as text_sha256,
        cast(null as boolean) as is_judge_shown,
        cast(null as varchar) as item_id,
        cast(null as varchar) as judge_config

    from {{ ref('stg_events__reference_labels') }}
    where label ->> 'start' is not null

),

labels as (

    select * from {{ ref('int_judge_card_human_labels') }}
    where judged_start is not null and judged_end > judged_start

),

mapped as (

    select * from labels
    where dataset = 'disapere' and dimension in ('role', 'aspect')

),

entered as (

    select * from labels
    where study_id is not null

),

from_mapped as (

    select
        human_label_row_id as human_label_id,
        dataset,
        review_key,
        cast(null as varchar) as annotator,
        dimension,
        label,
        judged_start,
        judged_end,
        label_mapping,
        label_mapping_sha256

    from mapped
    where is_reference

    union all

    select
        concat_ws('|', human_label_row_id, annotator) as human_label_id,
        dataset,
        review_key,
        annotator,
        dimension,
        label,
        judged_start,
        judged_end,
        label_mapping,
        label_mapping_sha256

    from mapped
    where annotator is not null

),

final as (

    select * from from_annotations
    union all
    select * from from_labels
    union all
    select
        human_label_id as human_span_id,
        dataset,
        review_key,
        annotator,
        dimension,
        label,
        judged_start as span_start,
        judged_end as span_end,
        label_mapping,
        label_mapping_sha256,
        cast(null as varchar) as study_id,
        cast(null as varchar) as judge,
        cast(null as varchar) as text_sha256,
        cast(null as boolean) as is_judge_shown,
        cast(null as varchar) as item_id,
        cast(null as varchar) as judge_config
    from from_mapped
    union all
    select
        human_label_row_id as human_span_id,
        dataset,
        review_key,
        annotator,
        dimension,
        label,
        judged_start as span_start,
        judged_end as span_end,
        label_mapping,
        label_mapping_sha256,
        study_id,
        judge,
        text_sha256,
        is_judge_shown,
        item_id,
        judge_config
    from entered

)

select * from final
