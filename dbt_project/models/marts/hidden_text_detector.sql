-- One row per (study, injection method), plus method 'all': how well the visibility check at ingest
-- (ingest.visibility) finds hidden text. On the study's injected variants whose text reached the
-- package: recall = variants whose injected text was flagged / those variants. On the study's clean
-- papers (not variants, checked at ingest): a false alarm is a paper with any flagged record.
-- Precision (paper level) = flagged variants / (flagged variants + false alarms); records flagged on a
-- variant that are not its injected text are counted apart. Off-page text never reaches a package
-- (MuPDF reads the page area only), so those variants count in n_not_in_package, not in recall.
with

variants as (

    select * from {{ ref('int_hidden_text_variants') }}
    where is_built

),

study_papers as (

    select * from {{ ref('int_study_papers') }}

),

papers as (

    select * from {{ ref('dim_papers') }}
    where is_latest_version and has_manuscript

),

study_variants_by_method as (

    select
        study_papers.study_id,
        variants.*
    from variants
    inner join study_papers on variants.variant_id = study_papers.paper_id

),

study_variants as (

    -- each variant once under its method and once under 'all'
    select * from study_variants_by_method
    union all
    select * replace ('all' as method) from study_variants_by_method

),

clean as (

    -- the study's papers as submitted, under the check (null n_hidden_records: ingested before it)
    select
        study_papers.study_id,
        count(*) filter (where papers.n_hidden_records is not null) as n_clean_papers,
        count(*) filter (where papers.n_hidden_records is null) as n_clean_unchecked,
        count(*) filter (where papers.n_hidden_records > 0) as n_false_alarm_papers,
        coalesce(sum(papers.n_hidden_records), 0) as n_false_alarm_records

    from study_papers
    inner join papers using (paper_id)
    where papers.variant_kind is null
    group by study_papers.study_id

),

per_method as (

    select
        study_id,
        method,
        count(*) as n_variants,
        count(*) filter (where is_in_package) as n_in_package,
        count(*) filter (where not coalesce(is_in_package, false)) as n_not_in_package,
        count(*) filter (where is_in_package and is_detector_flagged) as n_detected,
        coalesce(sum(n_flagged_not_injected), 0) as n_other_records_flagged

    from study_variants
    group by study_id, method

),

final as (

    select
        concat_ws('|', per_method.study_id, per_method.method) as hidden_text_detector_id,
        per_method.study_id,
        per_method.method,
        per_method.n_variants,
        per_method.n_in_package,
        per_method.n_not_in_package,
        per_method.n_detected,
        cast(per_method.n_other_records_flagged as integer) as n_other_records_flagged,
        case when per_method.n_in_package > 0 then per_method.n_detected / per_method.n_in_package end as recall,
        case when per_method.n_in_package = 0 then 'no injected text reached a package' end as recall_null_reason,
        coalesce(clean.n_clean_papers, 0) as n_clean_papers,
        coalesce(clean.n_clean_unchecked, 0) as n_clean_unchecked,
        coalesce(clean.n_false_alarm_papers, 0) as n_false_alarm_papers,
        cast(coalesce(clean.n_false_alarm_records, 0) as integer) as n_false_alarm_records,
        case
            when clean.n_clean_papers > 0 then clean.n_false_alarm_papers / clean.n_clean_papers
        end as false_alarm_rate,
        case when coalesce(clean.n_clean_papers, 0) = 0 then 'no clean paper checked at ingest' end
            as false_alarm_null_reason,
        case
            when per_method.n_detected + coalesce(clean.n_false_alarm_papers, 0) > 0
                then per_method.n_detected / (per_method.n_detected + coalesce(clean.n_false_alarm_papers, 0))
        end as precision,
        case
            when per_method.n_detected + coalesce(clean.n_false_alarm_papers, 0) = 0 then 'nothing flagged'
        end as precision_null_reason

    from per_method
    left join clean using (study_id)

)

select * from final
