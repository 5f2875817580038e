-- Per study, reviewer configuration and block size k: how often two disjoint k-blocks of reviews order a
-- pair of papers (same venue-year) the same way, tie, or reverse it — as percentages of all
-- (paper pair × partition) comparisons, which is the average over partitions and pairs.
with

comparisons as (

    select * from {{ ref('int_rank_comparisons') }}

),

shares as (

    select
        *,
        n_same + n_tie + n_reverse as n_comparisons,
        100.0 * n_same / nullif(n_same + n_tie + n_reverse, 0) as pct_same,
        100.0 * n_tie / nullif(n_same + n_tie + n_reverse, 0) as pct_tie,
        100.0 * n_reverse / nullif(n_same + n_tie + n_reverse, 0) as pct_reverse

    from comparisons

),

final as (

    select
        study_id || '|' || reviewer_config || '|k=' || cast(k as varchar) as rank_reproducibility_id,
        study_id,
        reviewer_config,
        k,
        n_rounds,
        n_papers,
        n_papers_excluded,
        n_pairs,
        n_partitions,
        n_comparisons,
        n_same,
        n_tie,
        n_reverse,
        pct_same,
        pct_tie,
        pct_reverse,
        -- what the gate checks: the three shares must add up to 100
        pct_same + pct_tie + pct_reverse as pct_total

    from shares

)

select * from final
