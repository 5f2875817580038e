-- One row per contradiction variant (judging.benchmark): the benchmark item it holds (node, type, level,
-- distance, paragraphs' length), built or not, and its validation: 'passed' when the optional validation
-- judge (judge 'contradiction', step 'validate', subject 'variant:<variant_id>') said the modified
-- paragraph contradicts the node and is not detectable as an edit from its local context alone;
-- 'failed' otherwise; 'not_validated' when no such judgment exists, 'validation_null' when it is null.
-- Items are shared between studies: the study scoping happens in int_contradiction_detections.
with

variants as (

    select * from {{ ref('stg_events__paper_variants') }}
    where variant_kind = 'contradiction'

),

judgments as (

    select * from {{ ref('int_judgments_latest') }}
    where judge = 'contradiction' and step = 'validate'

),

latest as (

    -- a variant id is derived from its variant key, so two events name one item only on a re-record
    select *
    from variants
    qualify row_number() over (
        partition by variant_id order by recorded_at desc, paper_variant_id desc
    ) = 1

),

validations as (

    -- the first repeat of the newest validation (a re-run under another builder model is newer)
    select
        substr(subject_key, length('variant:') + 1) as variant_id,
        status as validation_judgment_status,
        cast(units -> 0 ->> 'contradicts' as boolean) as is_contradicting,
        cast(units -> 0 ->> 'locally_detectable' as boolean) as is_locally_detectable

    from judgments
    where repeat_index = 0 and subject_key like 'variant:%'
    qualify row_number() over (
        partition by subject_key order by recorded_at desc, judgment_id desc
    ) = 1

),

final as (

    select
        latest.variant_id,
        latest.paper_variant_id,
        latest.base_paper_id,
        latest.experiment_config,
        latest.is_built,
        latest.not_built_reason,
        latest.details ->> '$.item_id' as item_id,
        latest.details ->> '$.node_id' as node_id,
        latest.details ->> '$.node_type' as node_type,
        latest.details ->> '$.node_level' as node_level,
        cast(latest.details ->> '$.distance' as integer) as distance,
        latest.details ->> '$.record_id' as record_id,
        cast(latest.details ->> '$.page' as integer) as page,
        length(latest.details ->> '$.original_paragraph') as original_chars,
        length(latest.details ->> '$.modified_paragraph') as modified_chars,
        validations.is_contradicting,
        validations.is_locally_detectable,
        case
            when validations.variant_id is null then 'not_validated'
            when validations.validation_judgment_status != 'ok' then 'validation_null'
            when validations.is_contradicting and not validations.is_locally_detectable then 'passed'
            else 'failed'
        end as validation_status,
        coalesce(
            validations.is_contradicting and not validations.is_locally_detectable, false
        ) as is_validated

    from latest
    left join validations using (variant_id)

)

select * from final
